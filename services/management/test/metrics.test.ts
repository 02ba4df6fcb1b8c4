// Management's metrics on its operational listener: requests by route record, the outbox's age and
// size, its consumer groups' lag, webhook outcomes and import progress; never on its public port.
import { printProcessOutputOnFailure, sampleValue, scrapeMetrics, waitFor } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

printProcessOutputOnFailure();

let stack: Stack;
let auth: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({ inProcess: true });
  const account = await stack.createAccount(`management-metrics-${Date.now()}@example.com`, 10);
  auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
});
afterAll(async () => {
  await stack?.stop();
});

it("serves the outbox, bus lag, webhook, import and request series on the ops port only", async () => {
  const created = await fetch(`${stack.origin}/api/v1/links`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ url: "https://example.com/metrics" }),
  });
  expect(created.status).toBe(201);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  expect((await fetch(`${stack.origin}/api/v1/links/${id}`, { headers: auth })).status).toBe(200);

  // The link's events leave the outbox (relayed after the commit): its age falls back to 0.
  let samples = (await scrapeMetrics(stack.urls.managementOps)).samples;
  await waitFor(
    async () => {
      samples = (await scrapeMetrics(stack.urls.managementOps)).samples;
      return sampleValue(samples, "outbox_events") === 0;
    },
    { description: "the outbox relayed" },
  );
  const { text } = await scrapeMetrics(stack.urls.managementOps);
  expect(sampleValue(samples, "outbox_oldest_event_age_seconds")).toBe(0);
  const count = (method: string, route: string) =>
    sampleValue(samples, "http_request_duration_seconds_count", { method, route, status: "2xx" });
  expect(count("POST", "/api/v1/links")).toBe(1);
  expect(count("GET", "/api/v1/links/:id")).toBe(1);
  expect(text).not.toContain(id);
  // Every consumer group management runs reports its lag (the click totals and the webhooks' inputs).
  const groups = (samples.get("bus_consumer_lag_messages") ?? []).map((s) => s.labels.group);
  expect(groups.length).toBeGreaterThanOrEqual(2);
  for (const outcome of ["delivered", "retrying", "failed"]) {
    expect(sampleValue(samples, "webhook_deliveries_total", { outcome })).toBe(0);
  }
  expect(sampleValue(samples, "import_rows", { state: "total" })).toBe(0);
  expect(sampleValue(samples, "import_jobs", { status: "queued" })).toBe(0);
  expect(sampleValue(samples, "metrics_collect_failures_total") ?? 0).toBe(0);

  expect((await fetch(`${stack.urls.management}/metrics`)).status).not.toBe(200);
  expect((await fetch(`${stack.urls.managementOps}/ready`)).status).toBe(200);
});
