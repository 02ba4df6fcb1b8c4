import { getFreePort } from "@kurz/testing";
import { context, propagation, trace } from "@opentelemetry/api";
import { afterAll, describe, expect, it } from "vitest";
import { createApp, startTelemetry, v1Success } from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe("startTelemetry with an unreachable collector", () => {
  it("serves requests normally and shutdown does not throw", async () => {
    // A port nothing listens on: every export attempt is refused.
    const deadPort = await getFreePort();
    const captured = captureLogger("telemetry-unreachable", "debug");
    const telemetry = startTelemetry("kurz-unreachable-test", {
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}` },
      logger: captured.logger,
      // The exporter retries a refused connection for up to 10 s; cap the flush so the test is quick.
      shutdownTimeoutMs: 500,
    });
    expect(telemetry.enabled).toBe(true);

    const app = createApp({
      logger: captured.logger,
      envelope: "v1",
      routes: (app) => app.get("/api/v1/ping", (_req, res) => void res.json(v1Success("pong"))),
    });
    const { url } = await serve(app);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${url}/api/v1/ping`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: true, data: "pong" });
    }

    await expect(telemetry.shutdown()).resolves.toBeUndefined();
    // The failed flush is visible only at debug level.
    const otelLines = captured
      .lines()
      .filter((l) => l.level !== "debug" && /otel|telemetry|export/i.test(String(l.msg)));
    expect(otelLines).toEqual([]);
    const debug = captured
      .lines()
      .filter((l) => l.level === "debug")
      .map((l) => String(l.msg));
    expect(debug.some((msg) => /^telemetry shutdown (timed out|failed)/.test(msg))).toBe(true);
  });
});
