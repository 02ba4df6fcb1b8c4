import { createRequire } from "node:module";
import type { OTLPTraceExporter as OTLPTraceExporterType } from "@opentelemetry/exporter-trace-otlp-http";
import type { HttpInstrumentation as HttpInstrumentationType } from "@opentelemetry/instrumentation-http";
import type { NodeSDK as NodeSDKType } from "@opentelemetry/sdk-node";
import type { Logger } from "./logger.ts";

export interface Telemetry {
  readonly enabled: boolean;
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Bound on flushing spans at shutdown; a blackholed collector must not stall exit. Default 5000. */
  shutdownTimeoutMs?: number;
}

const DISABLED: Telemetry = { enabled: false, shutdown: async () => {} };
const UNTRACED_PATHS = new Set(["/health", "/ready"]);

// The SDK pulls in every exporter (gRPC included); load it only when tracing is on so a
// service without a collector pays nothing at start-up.
const requireLazily = createRequire(import.meta.url);

/**
 * Starts OpenTelemetry tracing with HTTP instrumentation when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set; otherwise returns a no-op. Export failures never reach requests: the SDK's batch
 * processor reports them through `diag`, which we route to debug logs.
 */
export function startTelemetry(serviceName: string, options: TelemetryOptions = {}): Telemetry {
  const env = options.env ?? process.env;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || env.OTEL_SDK_DISABLED === "true") return DISABLED;

  const { NodeSDK, api, resources } = requireLazily("@opentelemetry/sdk-node") as {
    NodeSDK: typeof NodeSDKType;
    api: typeof import("@opentelemetry/api");
    resources: typeof import("@opentelemetry/sdk-node").resources;
  };
  const { OTLPTraceExporter } = requireLazily("@opentelemetry/exporter-trace-otlp-http") as {
    OTLPTraceExporter: typeof OTLPTraceExporterType;
  };
  const { HttpInstrumentation } = requireLazily("@opentelemetry/instrumentation-http") as {
    HttpInstrumentation: typeof HttpInstrumentationType;
  };

  const logger = options.logger;
  if (logger) {
    // Collector errors carry its address; debug keeps them out of normal log storage.
    const toDebug = (message: string) => logger.debug({ otel: true }, message);
    api.diag.setLogger(
      { error: toDebug, warn: toDebug, info: toDebug, debug: toDebug, verbose: toDebug },
      api.DiagLogLevel.WARN,
    );
  }

  const tracesUrl =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || `${endpoint.replace(/\/+$/, "")}/v1/traces`;
  const sdk: NodeSDKType = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || serviceName,
    traceExporter: new OTLPTraceExporter({ url: tracesUrl }),
    // Only traces are exported; empty lists stop the SDK configuring log/metric exporters from env.
    logRecordProcessors: [],
    metricReaders: [],
    // Explicit, so no cloud detector (which probes a metadata address) can be switched on by env.
    resourceDetectors: [resources.envDetector, resources.processDetector, resources.hostDetector],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? "").split("?")[0] ?? ""),
      }),
    ],
  });
  sdk.start();
  // The instrumentation patches http when it is next required. Services import express (and
  // so http) before calling us, so require it again here to apply the patch now.
  requireLazily("http");
  requireLazily("https");

  const timeoutMs = options.shutdownTimeoutMs ?? 5000;
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown() {
      stopped ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            sdk.shutdown(),
            new Promise<void>((resolve) => {
              timer = setTimeout(() => {
                logger?.debug("telemetry shutdown timed out; unsent spans dropped");
                resolve();
              }, timeoutMs);
            }),
          ]);
        } catch (err) {
          logger?.debug({ err }, "telemetry shutdown failed; unsent spans dropped");
        } finally {
          clearTimeout(timer);
        }
      })();
      return stopped;
    },
  };
}
