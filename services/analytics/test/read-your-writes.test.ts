// Read-your-writes (docs/analytics.md): once a create, update or delete has answered, analytics
// agrees with management, although its link dimension only follows through the outbox.
// The relay is woken after every write, so a slow poll alone does not delay it: to make the lag
// certain, the test holds the relay's advisory lock, leaving the events unpublished in the outbox
// (and checks that they are). Answers read from the link dimension would fail every step there.
import { randomUUID } from "node:crypto";
import { holdAdvisoryLock, printProcessOutputOnFailure, waitFor, withUtcDayLeft } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Account, type LinkData, publicApi } from "./support/public-api.ts";

printProcessOutputOnFailure();

/** The relay's pg_try_advisory_xact_lock key (services/management/src/db/outbox.ts). */
const RELAY_LOCK = 727_001;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

let stack: Stack;
let db: pg.Client;
/** The UTC day of a test's clicks, which its answers are expected in. */
let today: string;

beforeAll(async () => {
  stack = await startStack({
    inProcess: true,
    extraEnv: {
      OUTBOX_POLL_MS: "2000",
      // The loops below poll analytics every 100 ms until clicks settle, with one key: on a loaded
      // machine that took more than the default 60 requests a minute and the assertions met 429.
      RATE_LIMIT_PER_MINUTE: "100000",
      RATE_LIMIT_PER_HOUR: "1000000",
    },
  });
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});
// A test's clicks fall in one UTC day, its time limit ahead (the wait for the next day, when that
// comes, is the hook's time, not the test's).
beforeEach(async () => {
  ({ day: today } = await withUtcDayLeft(60_000));
});

const { api, createLink: create, settled } = publicApi(() => stack);
const createLink = (a: Account, url: string, title: string) => create(a, { url, title });

async function click(link: LinkData, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await fetch(link.short_url, {
      redirect: "manual",
      headers: { "user-agent": BROWSER, "x-forwarded-for": `198.51.100.${i + 1}` },
    });
    expect(res.status).toBe(302);
  }
}

const summary = async (a: Account) => {
  const res = await api(a, "GET", "/api/v1/analytics/summary");
  expect(res.status).toBe(200);
  return res.body.data;
};

/** The summary of an account whose clicks all fall on the test's day. */
const summaryOfToday = (s: {
  links: number;
  active: number;
  clicks: number;
  visitors: number;
  top: object[];
}) => ({
  total_links: s.links,
  active_links: s.active,
  total_clicks: s.clicks,
  unique_visitors: s.visitors,
  clicks_over_time: [{ date: today, count: s.clicks }],
  top_links: s.top,
});

/** A link in the summary's top list, with its url and title as management has them. */
const topLink = (link: LinkData, url: string, title: string, clicks: number) => ({
  id: link.id,
  short_code: link.short_code,
  original_url: url,
  title,
  clicks_count: clicks,
});

const unpublished = async (linkId: string) =>
  Number((await db.query("SELECT count(*)::int AS n FROM outbox_events WHERE key = $1", [linkId])).rows[0].n);

describe("with the outbox relay held (the link dimension lags as long as it likes)", () => {
  it("agrees with management at once after create, update and delete", async () => {
    const a = await stack.createAccount(`ryw-held-${randomUUID()}@example.com`);
    const doomed = await createLink(a, "https://example.com/doomed", "Doomed");
    const kept = await createLink(a, "https://example.com/kept", "Kept");
    await click(doomed, 3);
    await click(kept, 1);
    await settled(a, doomed, 3);
    await settled(a, kept, 1);
    await waitFor(async () => (await summary(a)).total_clicks === 4, {
      description: "4 clicks in the summary",
    });

    let fresh: LinkData | undefined;
    const relay = await holdAdvisoryLock(stack.databaseUrl, RELAY_LOCK);
    try {
      expect((await api(a, "DELETE", `/api/v1/links/${doomed.id}`)).status).toBe(200);
      // Deleted now: 404, like a link that never existed, and gone from every part of the summary.
      const gone = await api(a, "GET", `/api/v1/analytics/${doomed.id}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
      expect(await summary(a)).toEqual(
        // Kept's one visitor (198.51.100.1); the deleted link's three are gone with its clicks.
        summaryOfToday({
          links: 1,
          active: 1,
          clicks: 1,
          visitors: 1,
          top: [topLink(kept, "https://example.com/kept", "Kept", 1)],
        }),
      );

      // Created now: 200 with management's code and no clicks, and counted in the summary.
      fresh = await createLink(a, "https://example.com/fresh", "Fresh");
      const stats = await api(a, "GET", `/api/v1/analytics/${fresh.id}`);
      expect(stats.status).toBe(200);
      expect(stats.body.data).toMatchObject({
        link_id: fresh.id,
        short_code: fresh.short_code,
        total_clicks: 0,
        time_series: [],
        referrers: [],
      });
      expect(await summary(a)).toMatchObject({ total_links: 2, active_links: 2, total_clicks: 1 });

      // Its clicks reach the rollups without the link dimension; the top list shows it as management has it.
      await click(fresh, 2);
      await settled(a, fresh, 2);
      expect(
        (await api(a, "PATCH", `/api/v1/links/${fresh.id}`, { title: "Renamed", is_active: false })).status,
      ).toBe(200);
      expect(await summary(a)).toEqual(
        // 198.51.100.1 on both links is one visitor; 198.51.100.2 the other.
        summaryOfToday({
          links: 2,
          active: 1,
          clicks: 3,
          visitors: 2,
          top: [
            topLink(fresh, "https://example.com/fresh", "Renamed", 2),
            topLink(kept, "https://example.com/kept", "Kept", 1),
          ],
        }),
      );

      // Public analytics follow the owner's switch at once, both ways.
      const publicPath = `/api/v1/public/analytics/${kept.short_code}`;
      expect((await api(null, "GET", publicPath)).status).toBe(404);
      await api(a, "PATCH", `/api/v1/links/${kept.id}`, { analytics_public: true });
      const shown = await api(null, "GET", publicPath);
      expect(shown.status).toBe(200);
      expect(shown.body.data).toMatchObject({ short_code: kept.short_code, total_clicks: 1 });
      await api(a, "PATCH", `/api/v1/links/${kept.id}`, { analytics_public: false });
      expect((await api(null, "GET", publicPath)).status).toBe(404);

      // The proof that the dimension could not have known: none of these events has left the outbox.
      expect(await unpublished(doomed.id)).toBe(1);
      expect(await unpublished(fresh.id)).toBe(2);
      expect(await unpublished(kept.id)).toBe(2);
    } finally {
      await relay.release();
    }

    // Once the relay runs again the dimension catches up, and the answers stay the same.
    const created = fresh as LinkData;
    await waitFor(async () => (await unpublished(created.id)) + (await unpublished(doomed.id)) === 0, {
      timeoutMs: 15_000,
      description: "the outbox drained",
    });
    const after = await summary(a);
    expect(after).toMatchObject({ total_links: 2, active_links: 1, total_clicks: 3 });
    expect(after.top_links.map((l: { id: string }) => l.id)).toEqual([created.id, kept.id]);
    expect((await api(a, "GET", `/api/v1/analytics/${doomed.id}`)).status).toBe(404);
  });
});

describe("with the relay running as usual", () => {
  it("reads right after every create and delete, again and again", async () => {
    const a = await stack.createAccount(`ryw-loop-${randomUUID()}@example.com`);
    const base = await createLink(a, "https://example.com/base", "Base");
    await click(base, 1);
    await settled(a, base, 1);
    for (let round = 0; round < 6; round++) {
      const link = await createLink(a, `https://example.com/r${round}`, `R${round}`);
      const created = await api(a, "GET", `/api/v1/analytics/${link.id}`);
      expect(created.status, `round ${round}: analytics right after create`).toBe(200);
      expect(created.body.data).toMatchObject({
        link_id: link.id,
        short_code: link.short_code,
        total_clicks: 0,
      });
      expect((await summary(a)).total_links, `round ${round}`).toBe(2);

      await click(link, 2);
      await settled(a, link, 2);
      expect((await api(a, "DELETE", `/api/v1/links/${link.id}`)).status).toBe(200);
      const deleted = await api(a, "GET", `/api/v1/analytics/${link.id}`);
      expect(deleted.status, `round ${round}: analytics right after delete`).toBe(404);
      const s = await summary(a);
      expect(s.total_links, `round ${round}`).toBe(1);
      expect(s.total_clicks, `round ${round}: clicks of the deleted link`).toBe(1);
      expect(s.clicks_over_time, `round ${round}`).toEqual([{ date: today, count: 1 }]);
      expect(
        s.top_links.map((l: { id: string }) => l.id),
        `round ${round}: top links`,
      ).toEqual([base.id]);
    }
  });
});
