// Periods with times of day and hourly series, checked against the same numbers computed in plain
// code from the clicks themselves: whole days, whole hours and partial hours (link_stats; raw clicks
// past its click rows) in every combination must agree with the truth. Also: every click, redelivered
// ones included, counts once in each rollup.
import { randomUUID } from "node:crypto";
import { createClickHouse, type KurzClickHouse, migrate } from "@kurz/clickhouse";
import { TOP_LIST_SIZE } from "@kurz/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { linkStats } from "../src/queries/link-stats.ts";
import { type Period, periodOf } from "../src/queries/period.ts";
import { accountSummary } from "../src/queries/summary.ts";
import { clickRow } from "./fixtures/click-row.ts";

const HOUR = 3_600_000;
const account = randomUUID();
const links = [randomUUID(), randomUUID()];
const otherAccount = randomUUID();
const otherLink = randomUUID();
// Three days back from the start of this hour, so every click is in the past.
const base = Math.floor(Date.now() / HOUR) * HOUR - 72 * HOUR;

const pick = <T>(list: readonly T[], i: number) => list[i % list.length]!;
// More destinations than a top list holds (all are listed), most clicks to the default.
const DESTINATIONS = [
  ...Array.from({ length: 12 }, () => "default"),
  ...Array.from({ length: 12 }, (_, n) => `rule:${n + 1}`),
  "split:1",
  "split:2",
  "ios",
  "android",
  "expired",
];
function click(link: string, owner: string, ms: number, i: number): ClickRow {
  return clickRow(link, owner, ms, {
    referrer: i % 4 === 0 ? null : `https://ref${i % 13}.example/`,
    country: pick(["US", "GB", "DE", ""], i * 7),
    city: pick(["Austin", "", "Berlin", "London", "Leeds"], i * 3),
    device_type: pick(["desktop", "mobile", "tablet"], i * 5),
    browser: pick(["Chrome", "Firefox", "Safari", ""], i),
    os: pick(["Windows", "iOS", "Android"], i * 11),
    is_bot: i % 17 === 0 ? 1 : 0,
    // Few distinct visitors, so the same one returns within an hour, a day and across days.
    visitor_hash: String(1_000 + (i % 37)),
    destination: pick(DESTINATIONS, i * 19),
  });
}

// Pseudo-random but reproducible spread over 72 hours, with millisecond times.
const clicks: ClickRow[] = [];
for (let i = 0; i < 3_000; i++) {
  const ms = base + ((i * 7_919_993) % (72 * HOUR)) + (i % 1_000);
  clicks.push(click(pick(links, i), account, ms, i));
}
for (let i = 0; i < 200; i++) clicks.push(click(otherLink, otherAccount, base + i * 60_000, i));
// A link whose clicks are older than link_stats keeps click rows (35 days, its TTL): partial
// hours of its periods are read from raw clicks.
const oldAccount = randomUUID();
const oldLink = randomUUID();
const oldBase = base - 40 * 24 * HOUR;
for (let i = 0; i < 400; i++)
  clicks.push(click(oldLink, oldAccount, oldBase + ((i * 7_919_993) % (6 * HOUR)) + (i % 1_000), i));
// Clicks exactly on an hour's first millisecond, and on its last: a raw span's ends must hold them
// exactly once (the periods below start or end on them).
for (const h of [5, 10, 30, 31])
  for (const [j, ms] of [0, HOUR - 1, HOUR].entries())
    clicks.push(click(pick(links, h + j), account, base + h * HOUR + ms, 3_000 + h * 3 + j));

/** The truth for one link (or the account) and period, from the rows above. */
function expected(rows: ClickRow[], period: Period) {
  const inside = rows.filter((r) => {
    const ms = Date.parse(`${r.ts.replace(" ", "T")}Z`);
    return ms >= period.from.getTime() && ms <= period.to.getTime();
  });
  const humans = inside.filter((r) => r.is_bot === 0);
  const count = (key: (r: ClickRow) => string) => {
    const m = new Map<string, number>();
    for (const r of humans) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
    return m;
  };
  const series = (key: (r: ClickRow) => string) => [...count(key)].sort(([a], [b]) => (a < b ? -1 : 1));
  const top = (key: (r: ClickRow) => string, keepEmpty = false) =>
    [...count(key)]
      .filter(([v]) => keepEmpty || !v.startsWith("\u0000"))
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, TOP_LIST_SIZE);
  const perDay = new Map<string, Set<string>>();
  for (const r of humans) {
    const day = r.ts.slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? new Set()).add(r.visitor_hash));
  }
  return {
    total_clicks: humans.length,
    bot_clicks: inside.length - humans.length,
    daily: series((r) => r.ts.slice(0, 10)).map(([date, c]) => ({ date, count: c })),
    hourly: series((r) => `${r.ts.slice(0, 13).replace(" ", "T")}:00:00Z`).map(([hour, c]) => ({
      hour,
      count: c,
    })),
    // "\u0000" marks unknown values, which the lists leave out ('' sorts first anyway).
    referrers: top((r) => r.referrer ?? "", true).map(([v, c]) => ({
      referrer: v === "" ? null : v,
      count: c,
    })),
    countries: top((r) => r.country || "\u0000").map(([country, c]) => ({ country, count: c })),
    browsers: top((r) => r.browser || "\u0000").map(([browser, c]) => ({ browser, count: c })),
    destinations: [...count((r) => r.destination)]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([destination, c]) => ({ destination, count: c })),
    unique_visitors: [...perDay.values()].reduce((n, s) => n + s.size, 0),
  };
}

/** A link's daily answer against the truth for its period. */
function expectTruth(days: Awaited<ReturnType<typeof linkStats>>, truth: ReturnType<typeof expected>) {
  expect(days.total_clicks).toBe(truth.total_clicks);
  expect(days.bot_clicks).toBe(truth.bot_clicks);
  expect(days.time_series).toEqual(truth.daily);
  expect(days.referrers).toEqual(truth.referrers);
  expect(days.countries).toEqual(truth.countries);
  expect(days.browsers).toEqual(truth.browsers);
  expect(days.destinations).toEqual(truth.destinations);
  expect(days.unique_visitors).toBe(truth.unique_visitors);
}

let ch: KurzClickHouse;

beforeAll(async () => {
  ch = await createClickHouse({ path: ":memory:", database: "hourly_test" });
  await migrate(ch);
  const half = clicks.filter((_, i) => i % 2 === 0);
  await writeClicks(ch, half);
  // Redelivered copies of stored clicks must not count twice.
  await writeClicks(ch, half.slice(0, 50));
  await writeClicks(ch, [...clicks.filter((_, i) => i % 2 === 1), ...half.slice(0, 100)]);
  // Click rows past link_stats' TTL go in a TTL merge, which ClickHouse runs in the background soon
  // after the insert (later on a busy machine): forced here, so the counts below never race it.
  await ch.command("OPTIMIZE TABLE link_stats FINAL");
});
afterAll(async () => {
  await ch?.close();
});

const one = async (sql: string) =>
  Number(Object.values((await ch.query<Record<string, number>>(sql))[0]!)[0]);

describe("the rollups", () => {
  it("count every click once in the hourly, daily, link_stats and all-time rollups", async () => {
    const bots = clicks.filter((c) => c.is_bot === 1).length;
    expect(await one("SELECT count() FROM clicks FINAL")).toBe(clicks.length);
    expect(await one("SELECT sum(clicks) + sum(bot_clicks) FROM link_hourly")).toBe(clicks.length);
    expect(await one("SELECT sum(clicks) + sum(bot_clicks) FROM link_daily")).toBe(clicks.length);
    expect(await one("SELECT sum(bot_clicks) FROM link_hourly")).toBe(bots);
    // Six dimensions per human click, and its destination unless the default, by hour and by day
    // (link_stats) and over all time (link_dim_total).
    const sent = clicks.filter((c) => c.is_bot === 0 && c.destination !== "default").length;
    expect(sent).toBeGreaterThan(0);
    for (const level of ["hour", "day"]) {
      expect(await one(`SELECT sum(n) FROM link_stats WHERE level = '${level}' AND kind = 'd'`)).toBe(
        6 * (clicks.length - bots) + sent,
      );
    }
    expect(await one("SELECT sum(clicks) FROM link_dim_total")).toBe(6 * (clicks.length - bots) + sent);
  });

  it("keep link_stats' rows at every level, click rows only within its TTL", async () => {
    const bots = clicks.filter((c) => c.is_bot === 1).length;
    // Click rows past the TTL are dropped by the TTL merge (the old link's).
    const recent = clicks.filter((c) => c.link_id !== oldLink).length;
    const days = await one("SELECT uniqExact(link_id, toDate(ts)) FROM clicks WHERE is_bot = 0");
    expect({
      day: await one("SELECT sum(n) + sum(bots) FROM link_stats WHERE level = 'day' AND kind = 's'"),
      hour: await one("SELECT sum(n) FROM link_stats WHERE level = 'hour' AND a = 'city'"),
      click: await one("SELECT count() FROM link_stats FINAL WHERE level = 'click' AND kind = 's'"),
      visitorDays: await one("SELECT count() FROM link_stats FINAL WHERE level = 'day' AND kind = 'v'"),
    }).toEqual({ day: clicks.length, hour: clicks.length - bots, click: recent, visitorDays: days });
  });
});

describe("all time", () => {
  it("breaks clicks down by destination, every one listed, the default the human clicks left", async () => {
    for (const link of links) {
      const truth = expected(
        clicks.filter((c) => c.link_id === link),
        { from: new Date(0), to: new Date(8.64e15) },
      );
      const stats = await linkStats(ch, { link_id: link, account_id: account, short_code: "t" }, null);
      expect(stats.total_clicks).toBe(truth.total_clicks);
      expect(stats.destinations).toEqual(truth.destinations);
      expect(stats.destinations!.length).toBeGreaterThan(TOP_LIST_SIZE);
      expect(stats.destinations![0]).toEqual({ destination: "default", count: expect.any(Number) });
    }
  });
});

describe("periods with times of day, and hourly series", () => {
  const at = (h: number, ms = 0) => new Date(base + h * HOUR + ms).toISOString();
  const periods: [string, string, string][] = [
    ["whole days", at(0).slice(0, 10), at(48).slice(0, 10)],
    ["partial days and hours at both ends", at(5, 1_234_567), at(60, 2_345_678)],
    ["whole hours only", at(5), at(30, -1)],
    ["within one hour", at(10, 60_000), at(10, 2_400_000)],
    ["across one midnight", at(20, 999), at(28, 7)],
    ["to the millisecond", at(1, 1), at(71, HOUR - 2)],
    ["starting and ending on a click on an hour's first millisecond", at(5), at(31)],
    ["starting 1 ms after an hour, ending 1 ms before one", at(5, 1), at(31, -1)],
    ["ending on an hour's last millisecond, within one hour", at(10, 60_000), at(11, -1)],
    ["one millisecond, on an hour boundary", at(30), at(30)],
  ];

  for (const [name, start, end] of periods) {
    it(`agree with the clicks: ${name}`, async () => {
      const period = periodOf({ start, end })!;
      for (const link of links) {
        const truth = expected(
          clicks.filter((c) => c.link_id === link),
          period,
        );
        const ref = { link_id: link, account_id: account, short_code: "t" };
        const days = await linkStats(ch, ref, period);
        expectTruth(days, truth);

        const hours = await linkStats(ch, ref, period, "hour");
        expect(hours.time_series).toEqual(truth.hourly);
        expect({ ...hours, time_series: [] }).toEqual({ ...days, time_series: [] });
      }

      const truth = expected(
        clicks.filter((c) => c.account_id === account),
        period,
      );
      const directory = {
        linksSummary: async () => ({
          total_links: 2,
          active_links: 2,
          links: [],
          deleted_link_ids: [],
          deleted_truncated: false,
        }),
      };
      const daily = await accountSummary({ ch, links: directory }, account, period);
      expect(daily.clicks_over_time).toEqual(truth.daily);
      const hourly = await accountSummary({ ch, links: directory }, account, period, "hour");
      expect(hourly.clicks_over_time).toEqual(truth.hourly);
    });
  }
});

describe("a click stored twice in raw clicks (a copy not merged away yet)", () => {
  it("counts once in the partial hours read click by click", async () => {
    const owner = randomUUID();
    const link = randomUUID();
    const t = base + 40 * HOUR + 600_000;
    const rows = [1, 2, 3, 4, 17].map((i) => click(link, owner, t + i * 1_000, i));
    await ch.command("SYSTEM STOP MERGES clicks");
    try {
      await writeClicks(ch, rows);
      // A second copy of three of them, inserted past the writer's look-up: the table now holds
      // both copies (merges are stopped), and only the query's dedup by click id can drop them.
      await ch.insert("clicks", rows.slice(2));
      expect(await one(`SELECT count() FROM clicks WHERE link_id = '${link}'`)).toBe(8);
      const period = periodOf({
        start: new Date(t).toISOString(),
        end: new Date(t + 60_000).toISOString(),
      })!;
      const truth = expected(rows, period);
      expect(truth.bot_clicks).toBe(1);
      const ref = { link_id: link, account_id: owner, short_code: "t" };
      expectTruth(await linkStats(ch, ref, period), truth);
      expect((await linkStats(ch, ref, period, "hour")).time_series).toEqual(truth.hourly);
    } finally {
      await ch.command("SYSTEM START MERGES clicks");
    }
  });
});

describe("partial hours older than link_stats keeps click rows", () => {
  const at = (h: number, ms = 0) => new Date(oldBase + h * HOUR + ms).toISOString();
  const ref = { link_id: oldLink, account_id: oldAccount, short_code: "t" };
  const clickRows = () =>
    one(`SELECT count() FROM link_stats WHERE link_id = '${oldLink}' AND level = 'click'`);

  it("are read from raw clicks: the TTL keeps no click rows of them", async () => {
    const periods = [
      periodOf({ start: at(1, 123_456), end: at(5, 2_345_678) })!,
      periodOf({ start: at(0, 1), end: at(1, -1) })!,
      // One end older than the click rows, the other within them (no click there).
      periodOf({ start: at(2, 999), end: new Date(Date.now() - HOUR / 2).toISOString() })!,
    ];
    const check = async () => {
      for (const period of periods) {
        const truth = expected(
          clicks.filter((c) => c.link_id === oldLink),
          period,
        );
        expect(truth.total_clicks).toBeGreaterThan(0);
        const days = await linkStats(ch, ref, period);
        expectTruth(days, truth);
        expect((await linkStats(ch, ref, period, "hour")).time_series).toEqual(truth.hourly);
      }
    };
    expect(await clickRows()).toBe(0);
    expect(
      await one(`SELECT count() FROM link_stats WHERE link_id = '${oldLink}' AND level = 'hour'`),
    ).toBeGreaterThan(0);
    await check();
  });
});
