// The gateway's metrics: served on its operational listener only, requests labelled by their route
// record (never the raw path), the key cache's reads and the rate limiter's refusals counted.
import { printProcessOutputOnFailure, sampleValue, scrapeMetrics } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

printProcessOutputOnFailure();

let stack: Stack;
let auth: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({
    inProcess: true,
    serviceEnv: { gateway: { AUTH_FAILURE_LIMIT_PER_MINUTE: "2" } },
  });
  const account = await stack.createAccount(`gateway-metrics-${Date.now()}@example.com`, 10);
  auth = { authorization: `Bearer ${account.api_key}` };
});
afterAll(async () => {
  await stack?.stop();
});

it("labels API requests by route record, counts key cache reads and refusals, on the ops port only", async () => {
  expect((await fetch(`${stack.origin}/api/v1/links`, { headers: auth })).status).toBe(200);
  expect((await fetch(`${stack.origin}/api/v1/links`, { headers: auth })).status).toBe(200);
  const rawId = "lnk_metrics_raw_path_id";
  const unknown = await fetch(`${stack.origin}/api/v1/links/${rawId}`, { headers: auth });
  expect(unknown.status).toBeGreaterThanOrEqual(400);
  expect(unknown.status).toBeLessThan(500);
  // A client with made-up keys spends its failed-authentication budget (2), then is refused 429.
  const bad = { authorization: "Bearer kurz_made_up_key_0000000000000000000000000000" };
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++)
    statuses.push((await fetch(`${stack.origin}/api/v1/links`, { headers: bad })).status);
  expect(statuses).toContain(429);

  const { samples, text } = await scrapeMetrics(stack.urls.gatewayOps);
  const count = (route: string, status: string) =>
    sampleValue(samples, "http_request_duration_seconds_count", { method: "GET", route, status });
  expect(count("/api/v1/links", "2xx")).toBeGreaterThanOrEqual(2);
  expect(count("/api/v1/links/:id", "4xx")).toBeGreaterThanOrEqual(1);
  expect(text).not.toContain(rawId);
  expect(sampleValue(samples, "gateway_key_cache_reads_total", { result: "hit" })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(samples, "gateway_key_cache_reads_total", { result: "miss" })).toBeGreaterThanOrEqual(1);
  expect(sampleValue(samples, "gateway_rate_limit_refusals_total", { window: "1m" })).toBeGreaterThanOrEqual(
    1,
  );
  expect(
    sampleValue(samples, "http_requests_refused_total", { method: "GET", route: "/api/v1/links" }),
  ).toBeGreaterThanOrEqual(1);
  expect(sampleValue(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);

  // Neither the public origin nor the gateway's own listener serves metrics.
  expect((await fetch(`${stack.origin}/metrics`)).status).toBe(404);
  expect((await fetch(`${stack.urls.gatewayInternal}/metrics`)).status).not.toBe(200);
  const ops = await fetch(`${stack.urls.gatewayOps}/ready`);
  expect(ops.status).toBe(200);
});
