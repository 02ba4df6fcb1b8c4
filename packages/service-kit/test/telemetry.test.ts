import { createServer } from "node:http";
import { context, propagation, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, listen, startTelemetry, type Telemetry, v1Success } from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

// The SDK registers process-wide globals; unregister them so nothing leaks past this file.
afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

async function appUrl(): Promise<string> {
  const { logger } = captureLogger("telemetry-test");
  const app = createApp({
    logger,
    envelope: "v1",
    routes: (app) => app.get("/api/v1/ping", (_req, res) => void res.json(v1Success("pong"))),
  });
  return (await serve(app)).url;
}

describe("startTelemetry", () => {
  it("is a no-op when no OTLP endpoint is configured", async () => {
    const telemetry = startTelemetry("kurz-test", { env: { OTEL_EXPORTER_OTLP_ENDPOINT: "" } });
    expect(telemetry.enabled).toBe(false);
    const url = await appUrl();
    expect((await fetch(`${url}/api/v1/ping`)).status).toBe(200);
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });

  // One SDK per file: a second start cannot replace the global tracer provider.
  describe("with a collector", () => {
    let telemetry: Telemetry;
    const received: Array<{ path: string; body: string }> = [];
    let collectorPort = 0;

    afterAll(() => telemetry?.shutdown());

    it("exports a span for an instrumented request, and shutdown flushes it", async () => {
      const collector = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          received.push({ path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8") });
          res.setHeader("content-type", "application/json");
          res.end("{}");
        });
      });
      ({ port: collectorPort } = await listen(collector, "127.0.0.1", 0));
      const { logger } = captureLogger("telemetry-test", "debug");
      telemetry = startTelemetry("kurz-telemetry-test", {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collectorPort}/` },
        logger,
      });
      expect(telemetry.enabled).toBe(true);

      const url = await appUrl();
      expect((await fetch(`${url}/api/v1/ping`)).status).toBe(200);
      await telemetry.shutdown();
      collector.close();

      expect(received.map((r) => r.path)).toContain("/v1/traces");
      // The OTLP payload is protobuf or JSON depending on the exporter; the service name is a
      // plain string in both.
      expect(received.some((r) => r.body.includes("kurz-telemetry-test"))).toBe(true);
    });
  });
});
