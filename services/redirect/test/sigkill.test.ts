// No click lost to SIGKILL: clicks answered but not yet on the bus when the redirect is
// killed are in its journal, and the next start on the same port and spool directory publishes them.
// The control run, with the journal turned off, loses them: the test can tell the difference.
import { ensureRedis, printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import { afterEach, describe, expect, it } from "vitest";
import { clickMaker } from "./support/click-observer.ts";
import { numberedRecord } from "./support/records.ts";
import { startRedirectFixture } from "./support/redirect-fixture.ts";
import { bootRedirect } from "./support/redirect-process.ts";

printProcessOutputOnFailure();

const CLICKS = 300;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function killMidFlight(journal: boolean) {
  await ensureRedis();
  const f = await startRedirectFixture({
    name: "redirect-sigkill",
    observe: true,
    env: {
      CLICK_JOURNAL: String(journal),
      // Nothing is published for a minute: every click is still in the process when it is killed.
      CLICK_FLUSH_MS: "60000",
      CLICK_BATCH_MAX: "100000",
    },
    before: ({ mgmt }) => {
      for (let i = 1; i <= 6; i++) mgmt.links.set(`code${i}`, numberedRecord(i, `https://example.com/${i}`));
    },
  });
  cleanup.push(() => f.stop());
  let redirect = f.redirect;
  const clicks = clickMaker(() => redirect.url);
  const batch = Array.from({ length: CLICKS }, (_, i) => clicks.follow(`code${1 + (i % 5)}`));
  expect(new Set(await Promise.all(batch))).toEqual(new Set([302]));
  expect(clicks.made).toBe(CLICKS);
  await redirect.proc.stop("SIGKILL");

  // The supervisor's restart: same port, same spool directory, a normal flush interval.
  redirect = await bootRedirect({ ...redirect.env, CLICK_FLUSH_MS: "50", CLICK_BATCH_MAX: "1000" });
  cleanup.push(() => redirect.proc.stop());
  return { observer: f.clicks, clicks };
}

describe("a redirect killed with SIGKILL", () => {
  it("loses no answered click: the next start publishes what the journal holds", async () => {
    const { observer, clicks } = await killMidFlight(true);
    // A click on the restarted redirect, on a link of its own: the journal's clicks are queued for the
    // bus before it listens, so once this one is on the bus they all are.
    expect(await clicks.follow("code6")).toBe(302);
    await waitFor(() => observer.events.some((e) => e.short_code === "code6"), {
      timeoutMs: 20_000,
      description: "the restarted redirect's click on the bus",
    });
    // Exactly the clicks answered: none lost, none invented (a copy would be dropped at ingest by id).
    expect(observer.counts.size).toBe(CLICKS + 1);
  });

  it("(control) loses the clicks in flight without the journal", async () => {
    const { observer, clicks } = await killMidFlight(false);
    // The same marker: once it is on the bus, any click the killed redirect had kept would be too.
    expect(await clicks.follow("code6")).toBe(302);
    await waitFor(() => observer.events.some((e) => e.short_code === "code6"), { timeoutMs: 20_000 });
    expect(observer.counts.size).toBe(1);
  });
});
