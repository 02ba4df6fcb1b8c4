// Analytics' metrics on its operational listener: its consumer groups' lag, ClickHouse write latency
// and batch sizes, the embedded store's disk, and requests by route record; never on its public port.
import { printProcessOutputOnFailure, sampleValue, scrapeMetrics, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

printProcessOutputOnFailure();

let stack: Stack;
let auth: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({ inProcess: true });
  const account = await stack.createAccount(`analytics-metrics-${Date.now()}@example.com`, 10);
  auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
});
afterAll(async () => {
  await stack?.stop();
});

it("times ClickHouse writes, reports lag and disk, and labels requests by route record", async () => {
  const created = await fetch(`${stack.origin}/api/v1/links`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ url: "https://example.com/analytics-metrics" }),
  });
  expect(created.status).toBe(201);
  const link = ((await created.json()) as { data: { id: string; short_code: string } }).data;
  expect((await fetch(`${stack.origin}/${link.short_code}`, { redirect: "manual" })).status).toBe(302);

  let samples = (await scrapeMetrics(stack.urls.analyticsOps)).samples;
  await waitFor(
    async () => {
      samples = (await scrapeMetrics(stack.urls.analyticsOps)).samples;
      return (sampleValue(samples, "clickhouse_click_insert_duration_seconds_count") ?? 0) >= 1;
    },
    { timeoutMs: 20_000, description: "the click written to ClickHouse" },
  );
  expect(sampleValue(samples, "clickhouse_click_insert_batch_clicks_sum")).toBeGreaterThanOrEqual(1);
  const groups = (samples.get("bus_consumer_lag_messages") ?? []).map((s) => s.labels.group);
  expect(groups).toContain("analytics-clicks");
  expect(sampleValue(samples, "disk_size_bytes", { volume: "clickhouse" })).toBeGreaterThan(0);
  expect(sampleValue(samples, "disk_free_bytes", { volume: "clickhouse" })).toBeGreaterThan(0);

  expect((await fetch(`${stack.origin}/api/v1/analytics/${link.id}`, { headers: auth })).status).toBe(200);
  const after = await scrapeMetrics(stack.urls.analyticsOps);
  const count = sampleValue(after.samples, "http_request_duration_seconds_count", {
    method: "GET",
    route: "/api/v1/analytics/:link_id",
    status: "2xx",
  });
  expect(count).toBe(1);
  expect(after.text).not.toContain(link.id);

  expect((await fetch(`${stack.urls.analytics}/metrics`)).status).not.toBe(200);
  expect((await fetch(`${stack.urls.analyticsOps}/ready`)).status).toBe(200);
});
