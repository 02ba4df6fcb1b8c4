// No client address or user agent on any exported span (docs/security.md): real HTTP instrumentation,
// a real request carrying both, and an in-memory exporter standing in for the collector.
import { createRequire } from "node:module";
import { context, propagation, trace } from "@opentelemetry/api";
import { tracing } from "@opentelemetry/sdk-node";
import { afterAll, describe, expect, it } from "vitest";
import {
  createApp,
  isPrivateSpanAttribute,
  PRIVATE_SPAN_ATTRIBUTES,
  startTelemetry,
  v1Success,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

afterAll(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

const USER_AGENT = "PrivacyProbe/9.9 (visitor-fingerprint)";
const FORWARDED = "198.51.100.77";

// Through require at call time: the instrumentation patches the CommonJS module object, which an
// ESM import bound before telemetry started would bypass.
const http = () => createRequire(import.meta.url)("node:http") as typeof import("node:http");

function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http().request(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("span privacy", () => {
  it("names the attributes it drops, including captured identifying headers", () => {
    for (const key of [
      "client.address",
      "net.peer.ip",
      "net.sock.peer.addr",
      "http.client_ip",
      "user_agent.original",
    ]) {
      expect(PRIVATE_SPAN_ATTRIBUTES.has(key), key).toBe(true);
    }
    expect(isPrivateSpanAttribute("http.request.header.user_agent")).toBe(true);
    expect(isPrivateSpanAttribute("http.request.header.x-forwarded-for")).toBe(true);
    expect(isPrivateSpanAttribute("http.route")).toBe(false);
    expect(isPrivateSpanAttribute("http.response.status_code")).toBe(false);
  });

  it("exports server and client spans without the client's address or user agent", async () => {
    // The in-memory exporter forgets its spans on shutdown, so keep what it is given.
    const spans: tracing.ReadableSpan[] = [];
    const exporter = new tracing.InMemorySpanExporter();
    const keep: tracing.SpanExporter = {
      export: (batch, done) => {
        spans.push(...batch);
        exporter.export(batch, done);
      },
      shutdown: () => exporter.shutdown(),
    };
    const { logger } = captureLogger("telemetry-privacy-test");
    const telemetry = startTelemetry("kurz-privacy-test", {
      // Enabled by the endpoint; spans go to the in-memory exporter instead.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9/" },
      logger,
      spanExporter: keep,
    });
    expect(telemetry.enabled).toBe(true);
    const app = createApp({
      logger,
      envelope: "v1",
      routes: (app) => app.get("/api/v1/ping", (_req, res) => void res.json(v1Success("pong"))),
    });
    const { url } = await serve(app);
    expect(await get(`${url}/api/v1/ping`, { "user-agent": USER_AGENT, "x-forwarded-for": FORWARDED })).toBe(
      200,
    );
    await telemetry.shutdown();

    const kinds = new Set(spans.map((s) => s.kind));
    // Both sides of the request were traced: the server span is where the client's address lives.
    expect(kinds).toContain(1); // SERVER
    expect(kinds).toContain(2); // CLIENT
    const server = spans.find((s) => s.kind === 1)!;
    expect(Object.keys(server.attributes).length).toBeGreaterThan(3);
    for (const span of spans) {
      for (const [key, value] of Object.entries(span.attributes)) {
        expect(isPrivateSpanAttribute(key), `${span.name}: ${key}`).toBe(false);
        expect(String(value), `${span.name}: ${key}`).not.toContain(USER_AGENT);
        expect(String(value), `${span.name}: ${key}`).not.toContain(FORWARDED);
      }
      for (const event of span.events) {
        for (const key of Object.keys(event.attributes ?? {}))
          expect(isPrivateSpanAttribute(key)).toBe(false);
      }
    }
  });
});
