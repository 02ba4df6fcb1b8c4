// Metrics are operational data (route names, queue depths, disk space): served on each service's
// operational listener only, never through the public origin or on a service's own port, however the
// path is spelled; and nothing sent to an operational listener can crash its service.
import { expect, it } from "vitest";
import { raw, useAttackStack } from "./attack.ts";

const bed = useAttackStack({}, { inProcess: true });

const SPELLINGS = [
  "/metrics",
  "/metrics/",
  "/METRICS",
  "/metrics?format=prometheus",
  "/%6detrics",
  "//metrics",
];
const EXPOSITION =
  /http_request_duration_seconds|process_resident_memory_bytes|clicks_published_total|# TYPE/;

it("the public origin serves no /metrics, nor /api/…/metrics, however spelled", async () => {
  for (const path of [...SPELLINGS, "/api/metrics", "/api/v1/metrics", "/docs/metrics"]) {
    const res = await raw(bed.stack.origin, "GET", path);
    expect(res.status, path).not.toBe(200);
    expect([400, 401, 404], path).toContain(res.status);
    expect(res.text, path).not.toMatch(EXPOSITION);
  }
});

it("no service answers /metrics on its own port: only on its operational listener", async () => {
  const { urls } = bed.stack;
  for (const base of [urls.gatewayInternal, urls.management, urls.analytics, urls.redirect]) {
    for (const path of SPELLINGS) {
      const res = await raw(base, "GET", path);
      expect(res.status, `${base}${path}`).not.toBe(200);
      expect(res.text, `${base}${path}`).not.toMatch(EXPOSITION);
    }
  }
  for (const ops of [urls.gatewayOps, urls.managementOps, urls.analyticsOps, urls.redirectOps]) {
    const res = await raw(ops, "GET", "/metrics");
    expect(res.status, ops).toBe(200);
    expect(res.text).toMatch(/# TYPE/);
  }
});

it("an operational listener answers anything else 404 and keeps serving", async () => {
  const { urls } = bed.stack;
  for (const ops of [urls.gatewayOps, urls.managementOps, urls.analyticsOps]) {
    for (const [method, path] of [
      ["POST", "/metrics"],
      ["DELETE", "/metrics"],
      ["GET", "/metrics/../ready"],
      ["GET", "/api/v1/links"],
      ["GET", `/${"a".repeat(8000)}`],
    ] as const) {
      const res = await raw(ops, method, path, method === "POST" ? { body: "x".repeat(10_000) } : {});
      expect(res.status, `${method} ${ops}${path.slice(0, 40)}`).toBe(404);
    }
    expect((await raw(ops, "GET", "/metrics")).status).toBe(200);
  }
});
