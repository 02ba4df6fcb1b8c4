// The redirect's metrics on its operational listener: the click pipeline, spool and journal bytes,
// the spool's disk and the caches' lookups; never on the public port.
import { printProcessOutputOnFailure, sampleValue, scrapeMetrics } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { afterAll, beforeAll, expect, it } from "vitest";

printProcessOutputOnFailure();

let stack: Stack;
let auth: Record<string, string>;

beforeAll(async () => {
  stack = await startStack({ inProcess: true });
  const account = await stack.createAccount(`redirect-metrics-${Date.now()}@example.com`, 10);
  auth = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
});
afterAll(async () => {
  await stack?.stop();
});

it("counts cache lookups and reports the spool, the journal and their disk", async () => {
  const created = await fetch(`${stack.origin}/api/v1/links`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ url: "https://example.com/redirect-metrics" }),
  });
  const code = ((await created.json()) as { data: { short_code: string } }).data.short_code;
  for (let i = 0; i < 3; i++) {
    expect((await fetch(`${stack.origin}/${code}`, { redirect: "manual" })).status).toBe(302);
  }
  const { samples, text } = await scrapeMetrics(stack.urls.redirectOps);
  const lookups = (result: string) =>
    sampleValue(samples, "redirect_cache_lookups_total", { cache: "link", result });
  // The first visit loads the record, the next two are answered from memory.
  expect(lookups("miss")).toBeGreaterThanOrEqual(1);
  expect(lookups("hit")).toBeGreaterThanOrEqual(2);
  expect(sampleValue(samples, "clicks_dropped_total")).toBe(0);
  expect(sampleValue(samples, "redirect_refusals_total", { reason: "miss_budget" })).toBe(0);
  expect(sampleValue(samples, "redirect_refusals_total", { reason: "password_attempts" })).toBe(0);
  expect(sampleValue(samples, "click_spool_bytes")).toBeGreaterThanOrEqual(0);
  expect(sampleValue(samples, "click_spool_max_bytes")).toBeGreaterThan(0);
  expect(sampleValue(samples, "click_journal_bytes")).toBeGreaterThanOrEqual(0);
  expect(sampleValue(samples, "disk_size_bytes", { volume: "spool" })).toBeGreaterThan(0);
  expect(text).not.toContain(code);

  expect((await fetch(`${stack.origin}/metrics`)).status).toBe(404);
});
