// Two redirect instances behind a trusted edge (TRUST_PROXY) share the click id and time of a request
// the edge sent to both, as it does when it retries a GET whose first instance died before answering
// (decision 0049); analytics then keeps one click. Without trust the header is ignored: the SIGKILL
// scenario itself is in tests/chaos/faults.test.ts, the untrusted client in standalone.test.ts and
// tests/security/edge-click-ids.test.ts.
import { INTERNAL_HEADERS, redirectKey } from "@kurz/contracts";
import { expect, it } from "vitest";
import { clicksWith } from "./support/click-observer.ts";
import { redirectRecord } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";
import type { RedirectProcess } from "./support/redirect-process.ts";

const t = useRedirectFixture({
  name: "redirect-edge-ids",
  instances: 2,
  observe: true,
  env: { TRUST_PROXY: "true" },
  before: async (f) => {
    await f.redis.set(redirectKey("edged"), JSON.stringify(redirectRecord("https://example.com/edged")));
  },
});

const visit = (instance: RedirectProcess, ua: string, edge?: string) =>
  fetch(`${instance.url}/edged`, {
    redirect: "manual",
    headers: { "user-agent": ua, ...(edge ? { [INTERNAL_HEADERS.edgeRequest]: edge } : {}) },
  }).then((r) => r.status);

const edgeValue = (requestId: string, ms: number) =>
  `${requestId} ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, "0")}`;

it("gives one request seen by two instances one click id and time, taken from the edge's value", async () => {
  const at = Date.now() - 1_500; // the edge's time, not the instances' own
  const edge = edgeValue("6b542d65e2c4d0837981d44aea105cca", at);
  expect(await visit(t.instances[0]!, "ua-edge-retry", edge)).toBe(302);
  expect(await visit(t.instances[1]!, "ua-edge-retry", edge)).toBe(302);
  // Another request through the edge: another id.
  expect(
    await visit(t.instances[1]!, "ua-edge-other", edgeValue("0f8e2b1c9d7a6e5f4a3b2c1d0e9f8a7b", at)),
  ).toBe(302);
  const copies = await clicksWith(t.clicks, "ua-edge-retry", 2);
  expect(copies[0]!.click_id).toBe(copies[1]!.click_id);
  expect(copies[0]!.ts).toBe(new Date(at).toISOString());
  expect(copies[1]!.ts).toBe(copies[0]!.ts);
  expect(Number.parseInt(copies[0]!.click_id.replace("-", "").slice(0, 12), 16)).toBe(at);
  const [other] = await clicksWith(t.clicks, "ua-edge-other", 1);
  expect(other!.click_id).not.toBe(copies[0]!.click_id);
});

it("gives a request without the edge's value, or with a malformed or far-off one, a click id of its own", async () => {
  const far = edgeValue("6b542d65e2c4d0837981d44aea105cca", Date.now() - 86_400_000);
  for (const [ua, edge] of [
    ["ua-no-edge", undefined],
    ["ua-bad-edge", "not-a-request-id"],
    ["ua-far-edge", far],
  ] as const) {
    expect(await visit(t.instances[0]!, ua, edge)).toBe(302);
    expect(await visit(t.instances[1]!, ua, edge)).toBe(302);
  }
  for (const ua of ["ua-no-edge", "ua-bad-edge", "ua-far-edge"]) {
    const seen = await clicksWith(t.clicks, ua, 2);
    expect(seen[0]!.click_id, ua).not.toBe(seen[1]!.click_id);
    // Today's clicks, not the forged day's.
    for (const e of seen) expect(Math.abs(Date.parse(e.ts) - Date.now()), ua).toBeLessThan(60_000);
  }
});
