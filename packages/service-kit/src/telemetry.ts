import { createRequire } from "node:module";
import { TimeoutError, withTimeout } from "@kurz/bus";
import type { OTLPTraceExporter as OTLPTraceExporterType } from "@opentelemetry/exporter-trace-otlp-http";
import type { HttpInstrumentation as HttpInstrumentationType } from "@opentelemetry/instrumentation-http";
import type { NodeSDK as NodeSDKType, tracing } from "@opentelemetry/sdk-node";
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
  /** Where spans go instead of the OTLP endpoint (tests pass an in-memory exporter). */
  spanExporter?: tracing.SpanExporter;
}

/**
 * Span attributes that would carry a visitor's address or user agent (current and older HTTP
 * semantic conventions). On a server span the peer is the client, so peer addresses go too; on a
 * client span they are one of our own services, which traces do not need either.
 */
export const PRIVATE_SPAN_ATTRIBUTES: ReadonlySet<string> = new Set([
  "client.address",
  "client.port",
  "client.socket.address",
  "client.socket.port",
  "network.peer.address",
  "network.peer.port",
  "net.peer.ip",
  "net.peer.port",
  "net.sock.peer.addr",
  "net.sock.peer.port",
  "net.sock.peer.name",
  "http.client_ip",
  "user_agent.original",
  "user_agent.name",
  "user_agent.version",
  "user_agent.synthetic.type",
  "http.user_agent",
]);
// Captured request headers (`http.request.header.<name>`) that identify a client or carry credentials.
const PRIVATE_HEADER_ATTRIBUTE =
  /^http\.request\.header\.(user[-_]agent|x[-_]forwarded[-_]for|x[-_]real[-_]ip|forwarded|cookie|authorization|x[-_]kurz[-_].*)$/i;

export const isPrivateSpanAttribute = (key: string): boolean =>
  PRIVATE_SPAN_ATTRIBUTES.has(key) || PRIVATE_HEADER_ATTRIBUTE.test(key);

/**
 * Removes client addresses and user agents from every span before any exporter sees it
 * (docs/analytics.md, "What raw data lives where"). Registered ahead of the exporting processor;
 * span attributes are a plain object the SDK no longer reads once the span has ended.
 */
export class PrivacySpanProcessor implements tracing.SpanProcessor {
  onStart(): void {}
  onEnd(span: tracing.ReadableSpan): void {
    scrub(span.attributes as Record<string, unknown>);
    for (const event of span.events) if (event.attributes) scrub(event.attributes as Record<string, unknown>);
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function scrub(attributes: Record<string, unknown>): void {
  for (const key of Object.keys(attributes)) if (isPrivateSpanAttribute(key)) delete attributes[key];
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

  const { NodeSDK, api, resources, tracing } = requireLazily("@opentelemetry/sdk-node") as {
    NodeSDK: typeof NodeSDKType;
    api: typeof import("@opentelemetry/api");
    resources: typeof import("@opentelemetry/sdk-node").resources;
    tracing: typeof import("@opentelemetry/sdk-node").tracing;
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
    // The privacy processor runs first, so no exporter ever receives a client address or user agent.
    spanProcessors: [
      new PrivacySpanProcessor(),
      new tracing.BatchSpanProcessor(options.spanExporter ?? new OTLPTraceExporter({ url: tracesUrl })),
    ],
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
        try {
          await withTimeout(sdk.shutdown(), timeoutMs, "telemetry shutdown");
        } catch (err) {
          if (err instanceof TimeoutError)
            logger?.debug("telemetry shutdown timed out; unsent spans dropped");
          else logger?.debug({ err }, "telemetry shutdown failed; unsent spans dropped");
        }
      })();
      return stopped;
    },
  };
}
