// End to end through the public origin: redirects with chosen User-Agent, Referer and
// X-Forwarded-For produce exactly the expected analytics; date filters; ownership; deleting a link
// and reusing its alias; public analytics; click totals back in management.
import { randomUUID } from "node:crypto";
import { printProcessOutputOnFailure, waitFor, withUtcDayLeft } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Account, type LinkData, publicApi } from "./support/public-api.ts";

printProcessOutputOnFailure();

const UA = {
  firefoxLinux: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  iphone:
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  ipad: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  edgeWindows:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0",
  slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  facebook: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
};
// Public addresses whose DB-IP location is stable; 203.0.113.0/24 is documentation space (unknown).
const IP = { us: "8.8.8.8", gb: "81.2.69.160", jp: "210.140.92.183", unknown: "203.0.113.7" };

let stack: Stack;
let db: pg.Client;
const DAY = 86_400_000;
/** The UTC day `n` days from `day`. */
const dayFrom = (day: string, n: number) => new Date(Date.parse(day) + n * DAY).toISOString().slice(0, 10);
/**
 * Before a test's clicks: the day they all fall in (a test's time limit is left of it, see
 * withUtcDayLeft), which its answers are expected in, and the moment they start.
 */
const clickDay = () => withUtcDayLeft(60_000);

beforeAll(async () => {
  // The test client plays the edge proxy in front of the gateway: two trusted hops, so the
  // X-Forwarded-For it sends is the visitor's address.
  stack = await startStack({ inProcess: true, extraEnv: { TRUST_PROXY: "2" } });
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

const { api, createLink, settled } = publicApi(() => stack);

async function click(link: LinkData, ua: string, ip: string, referer?: string) {
  const res = await fetch(link.short_url, {
    redirect: "manual",
    headers: { "user-agent": ua, "x-forwarded-for": ip, ...(referer ? { referer } : {}) },
  });
  expect(res.status).toBe(302);
}

describe("link analytics", () => {
  let owner: Account;
  let other: Account;
  let link: LinkData;
  let today: string;
  let clickedFrom: number;
  const dayOffset = (n: number) => dayFrom(today, n);

  beforeAll(async () => {
    owner = await stack.createAccount(`owner-${randomUUID()}@example.com`);
    other = await stack.createAccount(`other-${randomUUID()}@example.com`);
    link = await createLink(owner, { url: "https://example.com/a" });
    ({ day: today, at: clickedFrom } = await clickDay());
    await click(link, UA.firefoxLinux, IP.us, "https://news.example.org/item");
    await click(link, UA.firefoxLinux, IP.us, "https://news.example.org/item"); // same visitor
    await click(link, UA.iphone, IP.gb, "https://social.example.com/");
    await click(link, UA.ipad, IP.jp);
    await click(link, UA.edgeWindows, IP.unknown);
    await click(link, UA.slack, IP.us); // link preview: recorded as a bot
    await click(link, UA.facebook, IP.gb);
    await settled(owner, link, 5, 2);
  });

  it("reports every dimension exactly, bots excluded", async () => {
    const { status, body } = await api(owner, "GET", `/api/v1/analytics/${link.id}`);
    expect(status).toBe(200);
    expect(body.data).toEqual({
      link_id: link.id,
      short_code: link.short_code,
      total_clicks: 5,
      time_series: [{ date: today, count: 5 }],
      referrers: [
        { referrer: null, count: 2 },
        { referrer: "https://news.example.org/item", count: 2 },
        { referrer: "https://social.example.com/", count: 1 },
      ],
      countries: [
        { country: "US", count: 2 },
        { country: "GB", count: 1 },
        { country: "JP", count: 1 },
      ],
      cities: [
        { city: "Mountain View", country: "US", count: 2 },
        { city: "Chiyoda City", country: "JP", count: 1 },
        { city: "London", country: "GB", count: 1 },
      ],
      devices: [
        { device_type: "desktop", count: 3 },
        { device_type: "mobile", count: 1 },
        { device_type: "tablet", count: 1 },
      ],
      browsers: [
        { browser: "Firefox", count: 2 },
        { browser: "Edge", count: 1 },
        { browser: "Mobile Safari", count: 2 },
      ].sort((x, y) => y.count - x.count || x.browser.localeCompare(y.browser)),
      // Ties are ordered by value, byte-wise (upper case first).
      os: [
        { os: "Linux", count: 2 },
        { os: "iOS", count: 2 },
        { os: "Windows", count: 1 },
      ],
      bot_clicks: 2,
      unique_visitors: 4,
      // A plain link: every human click went to its URL.
      destinations: [{ destination: "default", count: 5 }],
    });
  });

  it("filters by date only when both ends are given", async () => {
    const get = async (q: string) => (await api(owner, "GET", `/api/v1/analytics/${link.id}?${q}`)).body.data;
    expect((await get(`start=${dayOffset(-3)}&end=${dayOffset(-1)}`)).total_clicks).toBe(0);
    expect((await get(`start=${dayOffset(-3)}&end=${dayOffset(-1)}`)).time_series).toEqual([]);
    expect((await get(`start=${today}&end=${today}`)).total_clicks).toBe(5);
    expect((await get(`start=${dayOffset(-3)}`)).total_clicks).toBe(5);
    // Times of day: partial days are read from raw clicks, so the boundary is exact.
    // An hour after the clicks began (they took seconds), and an hour before.
    const later = new Date(clickedFrom + 3_600_000).toISOString();
    const earlier = new Date(clickedFrom - 3_600_000).toISOString();
    const yesterday = `${dayOffset(-1)}T12:00:00.000Z`;
    expect((await get(`start=${later}&end=${dayOffset(1)}`)).total_clicks).toBe(0);
    const ranged = await get(`start=${encodeURIComponent(yesterday)}&end=${encodeURIComponent(later)}`);
    expect(ranged.total_clicks).toBe(5);
    expect(ranged.countries).toEqual([
      { country: "US", count: 2 },
      { country: "GB", count: 1 },
      { country: "JP", count: 1 },
    ]);
    expect(ranged.unique_visitors).toBe(4);
    expect(ranged.bot_clicks).toBe(2);
    const inside = await get(`start=${encodeURIComponent(earlier)}&end=${encodeURIComponent(later)}`);
    expect(inside.time_series).toEqual([{ date: today, count: 5 }]);
  });

  it("rejects invalid dates with 400 VALIDATION_ERROR", async () => {
    for (const q of [
      "start=yesterday&end=2026-01-01",
      "start=2026-02-30&end=2026-03-01",
      "start=2026-03-02&end=2026-03-01",
    ]) {
      const res = await api(owner, "GET", `/api/v1/analytics/${link.id}?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("answers 404 for another account's link and for a missing one", async () => {
    for (const [who, id] of [
      [other, link.id],
      [owner, randomUUID()],
    ] as const) {
      const res = await api(who, "GET", `/api/v1/analytics/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: "NOT_FOUND" } });
    }
    expect((await api(owner, "GET", "/api/v1/analytics/not-a-uuid")).status).toBe(400);
  });

  it("keeps clicks_count on the link and total_clicks on the account", async () => {
    await waitFor(
      async () => {
        const { rows } = await db.query(
          "SELECT l.clicks_count::int AS link, a.total_clicks::int AS account FROM links l JOIN accounts a ON a.id = l.account_id WHERE l.id = $1",
          [link.id],
        );
        return rows[0]?.link === 5 && rows[0]?.account === 5;
      },
      { timeoutMs: 15_000, intervalMs: 100, description: "click totals in management" },
    );
    const res = await api(owner, "GET", `/api/v1/links/${link.id}`);
    expect(res.body.data.clicks_count).toBe(5);
  });
});

describe("summary", () => {
  let today: string;
  // In a hook: its wait for the next day, when that comes, is not spent from the test's time.
  beforeEach(async () => {
    ({ day: today } = await clickDay());
  });

  it("counts links, clicks over time and the top links of the account only", async () => {
    const a = await stack.createAccount(`summary-${randomUUID()}@example.com`);
    const links: LinkData[] = [];
    for (let i = 0; i < 7; i++)
      links.push(await createLink(a, { url: `https://example.com/s${i}`, title: `S${i}` }));
    // link i gets i clicks: the top five are links 6..2.
    for (const [i, l] of links.entries()) for (let n = 0; n < i; n++) await click(l, UA.firefoxLinux, IP.us);
    await click(links[0]!, UA.slack, IP.us);
    expect((await api(a, "PATCH", `/api/v1/links/${links[6]!.id}`, { is_active: false })).status).toBe(200);
    await waitFor(
      async () => (await api(a, "GET", "/api/v1/analytics/summary")).body.data?.total_clicks === 21,
      { timeoutMs: 20_000, intervalMs: 100, description: "21 clicks in the summary" },
    );
    await waitFor(
      async () => (await api(a, "GET", "/api/v1/analytics/summary")).body.data.active_links === 6,
      {
        timeoutMs: 10_000,
        description: "the deactivation in the summary",
      },
    );
    const { status, body } = await api(a, "GET", "/api/v1/analytics/summary");
    expect(status).toBe(200);
    expect(body.data).toEqual({
      total_links: 7,
      active_links: 6,
      total_clicks: 21,
      // Every human click came from one browser at one address: one visitor across the links.
      unique_visitors: 1,
      clicks_over_time: [{ date: today, count: 21 }],
      top_links: [6, 5, 4, 3, 2].map((i) => ({
        id: links[i]!.id,
        short_code: links[i]!.short_code,
        original_url: `https://example.com/s${i}`,
        title: `S${i}`,
        clicks_count: i,
      })),
    });
    const past = await api(
      a,
      "GET",
      `/api/v1/analytics/summary?start=${dayFrom(today, -5)}&end=${dayFrom(today, -1)}`,
    );
    expect(past.body.data).toMatchObject({ total_clicks: 21, unique_visitors: 0, clicks_over_time: [] });
    expect((await api(a, "GET", "/api/v1/analytics/summary?start=x&end=y")).status).toBe(400);
  });
});

describe("deleting a link", () => {
  it("deletes its clicks, and a new link with the same alias starts at zero", async () => {
    const a = await stack.createAccount(`delete-${randomUUID()}@example.com`);
    const alias = `reuse-${randomUUID().slice(0, 8)}`;
    const first = await createLink(a, { url: "https://example.com/first", custom_alias: alias });
    await click(first, UA.firefoxLinux, IP.us);
    await click(first, UA.iphone, IP.gb);
    await settled(a, first, 2);
    expect((await api(a, "DELETE", `/api/v1/links/${first.id}`)).status).toBe(200);
    await waitFor(async () => (await api(a, "GET", `/api/v1/analytics/${first.id}`)).status === 404, {
      timeoutMs: 10_000,
      description: "the deletion in analytics",
    });
    await waitFor(
      async () => (await api(a, "GET", "/api/v1/analytics/summary")).body.data.total_clicks === 0,
      { timeoutMs: 10_000, description: "the summary without the deleted clicks" },
    );

    const second = await createLink(a, { url: "https://example.com/second", custom_alias: alias });
    expect(second.short_code).toBe(alias);
    await waitFor(async () => (await api(a, "GET", `/api/v1/analytics/${second.id}`)).status === 200, {
      timeoutMs: 10_000,
      description: "the new link in analytics",
    });
    expect((await api(a, "GET", `/api/v1/analytics/${second.id}`)).body.data).toMatchObject({
      total_clicks: 0,
      time_series: [],
      referrers: [],
    });
    await click(second, UA.edgeWindows, IP.jp);
    await settled(a, second, 1);
    // The deleted link's two visitors are gone with its clicks; the new link's one remains.
    expect((await api(a, "GET", "/api/v1/analytics/summary")).body.data).toMatchObject({
      total_clicks: 1,
      unique_visitors: 1,
    });
  });
});

describe("public analytics", () => {
  let today: string;
  beforeEach(async () => {
    ({ day: today } = await clickDay());
  });

  it("serves only shared sections of public links, without a key", async () => {
    const a = await stack.createAccount(`public-${randomUUID()}@example.com`);
    const link = await createLink(a, { url: "https://example.com/public" });
    const path = `/api/v1/public/analytics/${link.short_code}`;
    await click(link, UA.iphone, IP.gb, "https://social.example.com/");
    await settled(a, link, 1);
    expect((await api(null, "GET", path)).status).toBe(404); // private by default

    expect(
      (
        await api(a, "PATCH", `/api/v1/links/${link.id}`, {
          analytics_public: true,
          analytics_shared_fields: ["overview", "browsers"],
        })
      ).status,
    ).toBe(200);
    await waitFor(async () => (await api(null, "GET", path)).status === 200, {
      timeoutMs: 10_000,
      description: "the link to become public in analytics",
    });
    expect((await api(null, "GET", path)).body).toEqual({
      success: true,
      data: {
        short_code: link.short_code,
        shared_fields: ["overview", "browsers"],
        total_clicks: 1,
        unique_visitors: 1,
        time_series: [{ date: today, count: 1 }],
        browsers: [{ browser: "Mobile Safari", count: 1 }],
      },
    });

    await api(a, "PATCH", `/api/v1/links/${link.id}`, { analytics_shared_fields: null });
    await waitFor(async () => (await api(null, "GET", path)).body.data?.shared_fields?.length === 5, {
      timeoutMs: 10_000,
      description: "all sections shared",
    });
    expect(Object.keys((await api(null, "GET", path)).body.data).sort()).toEqual(
      [
        "browsers",
        "cities",
        "countries",
        "devices",
        "os",
        "referrers",
        "shared_fields",
        "short_code",
        "time_series",
        "total_clicks",
        "unique_visitors",
      ].sort(),
    );

    await api(a, "PATCH", `/api/v1/links/${link.id}`, { analytics_public: false });
    await waitFor(async () => (await api(null, "GET", path)).status === 404, {
      timeoutMs: 10_000,
      description: "the link to become private again",
    });
    expect((await api(null, "GET", "/api/v1/public/analytics/no-such-code-here")).status).toBe(404);
  });
});
