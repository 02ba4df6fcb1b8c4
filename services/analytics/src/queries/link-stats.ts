// One link's analytics (the documented fields plus bot_clicks and unique_visitors). Bots are excluded from
// every count. A period, whole days or times of day, is one read of `link_stats` (decision
// 0048): its whole days, the whole hours of its partial days and the clicks of its partial hours are key
// ranges of that one table. All time reads the all-time breakdown (link_dim_total), far fewer rows than every
// day of the link. Destinations are stored only for clicks not sent to the default; the default's
// count is the rest of the human clicks (migrations/0012_click_destination.sql).
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type AnalyticsInterval, type LinkAnalytics, TOP_LIST_SIZE } from "@kurz/contracts";
import { levelRanges, type Period } from "./period.ts";

export interface LinkRef {
  link_id: string;
  account_id: string;
  short_code: string;
}

type Dim = "referrer" | "country" | "city" | "device" | "browser" | "os" | "destination";

// Byte order, as ClickHouse sorts strings (ties in a top list must come out as they did in SQL).
const cmp = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));

/** `time_series` entries: a date, or with `interval=hour` the hour's start as an ISO datetime. */
export type Interval = AnalyticsInterval;

// Every source gives rows of one shape, told apart by `kind`: s = a series bucket (a = the bucket,
// n = human clicks, bots = bot clicks), d = a breakdown row (a = the dimension, b = its value, c = a
// city's country, n = clicks), v = one day's unique visitors (a = the day, vs = its visitor hashes,
// salted per day, so days add up). One GROUP BY over them answers the whole request.
const shape = (kind: string, a: string, b: string, c: string, n: string, bots: string, vs: string) =>
  `SELECT '${kind}' AS kind, ${a} AS a, ${b} AS b, ${c} AS c, toUInt64(${n}) AS n, toUInt64(${bots}) AS bots, ${vs} AS vs`;

interface Source {
  /** Rows of the shape above. */
  sql: string;
  /** A group's human clicks, bot clicks and visitors, from the rows' n, bots and vs. */
  counts: string;
  params: Record<string, unknown>;
}

/**
 * All time: the daily series and visitors, and the all-time breakdown. Hourly series need a period
 * (contracts: interval=hour covers at most 7 days), so this series is daily.
 */
function allTime(): Source {
  const E = "arrayReduce('uniqExactState', emptyArrayUInt64())";
  const ofLink = "account_id = {account:UUID} AND link_id = {id:UUID}";
  return {
    sql: `${shape("s", "toString(day)", "''", "''", "clicks", "bot_clicks", E)} FROM link_daily WHERE ${ofLink}
      UNION ALL ${shape("d", "toString(dim)", "value", "toString(country)", "clicks", "0", E)}
        FROM link_dim_total WHERE link_id = {id:UUID}
      UNION ALL ${shape("v", "toString(day)", "''", "''", "0", "0", "visitors")}
        FROM link_visitors_daily WHERE link_id = {id:UUID}`,
    counts: "sum(n) AS n, sum(bots) AS bots, toUInt64(uniqExactMerge(vs)) AS v",
    params: {},
  };
}

/**
 * A period: breakdowns and visitors from its whole days where it has them; the series by its own
 * interval (an hourly series reads hours where the breakdowns read days).
 */
function ofPeriod(period: Period, interval: Interval): Source {
  const p = levelRanges(period, "day", "p");
  const series = interval === "day" ? null : levelRanges(period, "hour", "s");
  // `link_stats.kind`, the key column: a bare `kind` is the SELECT's toString alias, which the
  // primary key cannot narrow.
  const where = series
    ? `((link_stats.kind = 's' AND ${series.where}) OR (link_stats.kind != 's' AND ${p.where}))`
    : p.where;
  const bucket = (t: string) =>
    interval === "day" ? `toString(toDate(${t}))` : `toString(toDateTime(toStartOfHour(${t}), 'UTC'))`;
  const rows = [
    `SELECT toString(kind) AS kind,
       multiIf(kind = 'd', toString(link_stats.a), kind = 's', ${bucket("t")}, toString(toDate(t))) AS a,
       b, toString(link_stats.c) AS c, n, bots, vs, level = 'click' AS one, click_id
     FROM link_stats WHERE link_id = {id:UUID} AND ${where}`,
  ];
  // Both splits have the same partial hours (the period's ends), so one raw read serves both.
  if (p.clicksWhere) rows.push(oldClicks(bucket("ts"), p.clicksWhere));
  return {
    sql: rows.join(" UNION ALL "),
    // A click's own rows are counted by click id: a copy of a click that merges have not yet
    // collapsed (its rows share their whole key with the original's, or its raw row is a copy)
    // counts once. Visitor arrays are unions, which a copy cannot change.
    counts: `sumIf(n, NOT one) + uniqExactIf(click_id, one AND n > 0) AS n,
      sumIf(bots, NOT one) + uniqExactIf(click_id, one AND bots > 0) AS bots, toUInt64(uniqExactArray(vs)) AS v`,
    params: { ...p.params, ...series?.params },
  };
}

/**
 * Partial hours older than `link_stats` keeps click rows, from raw clicks: each click exploded into
 * the rows link_stats_rows_mv makes of it. Source columns are renamed first so that no output
 * alias (country) can shadow the column it is computed from.
 */
const oldClicks = (bucket: string, where: string) => `
  SELECT tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b, tupleElement(r, 4) AS c,
         toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots,
         if(kind = 'v', [visitor_hash], emptyArrayUInt64()) AS vs, toUInt8(1) AS one, click_id
  FROM (
    SELECT click_id, ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
           city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser,
           toString(os) AS src_os, toString(destination) AS src_destination
    FROM clicks WHERE link_id = {id:UUID} AND ${where}
  )
  ARRAY JOIN arrayConcat(
    [('s', ${bucket}, '', '', toUInt8(is_bot = 0), is_bot)],
    if(is_bot = 0, [
      ('d', 'referrer', src_referrer, '', 1, 0),
      ('d', 'country', src_country, '', 1, 0),
      ('d', 'city', src_city, if(src_city = '', '', src_country), 1, 0),
      ('d', 'device', src_device, '', 1, 0),
      ('d', 'browser', src_browser, '', 1, 0),
      ('d', 'os', src_os, '', 1, 0),
      ('v', toString(toDate(ts)), '', '', 0, 0)
    ], []),
    if(is_bot = 0 AND src_destination != 'default', [('d', 'destination', src_destination, '', 1, 0)], [])
  ) AS r`;

export async function linkStats(
  ch: KurzClickHouse,
  link: LinkRef,
  period: Period | null,
  interval: Interval = "day",
): Promise<LinkAnalytics> {
  const source = period ? ofPeriod(period, interval) : allTime();
  // Unknown values ('') are left out of the breakdowns, except direct traffic among referrers; each
  // breakdown keeps its top ${TOP_LIST_SIZE} (a series bucket or a day is one row per (kind, a)), except
  // destinations, all of which are kept (a variant with few clicks is still one to compare).
  const result = await ch.query<{
    kind: "s" | "d" | "v";
    a: string;
    b: string;
    c: string;
    n: number;
    bots: number;
    v: number;
  }>(
    `SELECT kind, a, b, c, ${source.counts}
     FROM (${source.sql})
     WHERE kind != 'd' OR b != '' OR a = 'referrer'
     GROUP BY kind, a, b, c
     HAVING kind != 'd' OR n > 0
     ORDER BY kind, a, n DESC, b, c
     LIMIT ${TOP_LIST_SIZE} BY kind, a, if(kind = 'd' AND a = 'destination', b, '')`,
    { ...source.params, id: link.link_id, account: link.account_id },
  );
  const rows = result
    .filter((r) => r.kind === "s")
    .map((r) => ({ bucket: r.a, clicks: Number(r.n), bots: Number(r.bots) }))
    .sort((x, y) => (x.bucket < y.bucket ? -1 : x.bucket > y.bucket ? 1 : 0));
  const breakdown = result
    .filter((r) => r.kind === "d")
    .map((r) => ({ dim: r.a as Dim, value: r.b, country: r.c, clicks: Number(r.n) }))
    .sort((x, y) => y.clicks - x.clicks || cmp(x.value, y.value) || cmp(x.country, y.country));
  const visitors = result.filter((r) => r.kind === "v").reduce((n, r) => n + Number(r.v), 0);

  const of = (dim: Dim) => breakdown.filter((r) => r.dim === dim);
  const buckets = rows.filter((r) => Number(r.clicks) > 0);
  const totalClicks = buckets.reduce((n, r) => n + Number(r.clicks), 0);
  return {
    link_id: link.link_id,
    short_code: link.short_code,
    total_clicks: totalClicks,
    time_series: seriesOf(buckets, interval),
    referrers: of("referrer").map((r) => ({
      referrer: r.value === "" ? null : r.value,
      count: Number(r.clicks),
    })),
    countries: of("country").map((r) => ({ country: r.value, count: Number(r.clicks) })),
    cities: of("city").map((r) => ({ city: r.value, country: r.country, count: Number(r.clicks) })),
    devices: of("device").map((r) => ({
      device_type: r.value as LinkAnalytics["devices"][number]["device_type"],
      count: Number(r.clicks),
    })),
    browsers: of("browser").map((r) => ({ browser: r.value, count: Number(r.clicks) })),
    os: of("os").map((r) => ({ os: r.value, count: Number(r.clicks) })),
    bot_clicks: rows.reduce((n, r) => n + Number(r.bots), 0),
    unique_visitors: visitors,
    destinations: destinationsOf(of("destination"), totalClicks),
  };
}

/**
 * Every destination with clicks, most first: the stored ones (every one but the default) and the
 * default, which is the human clicks left.
 */
function destinationsOf(
  stored: { value: string; clicks: number }[],
  totalClicks: number,
): NonNullable<LinkAnalytics["destinations"]> {
  const others = stored.reduce((n, r) => n + r.clicks, 0);
  const all = [
    ...stored.map((r) => ({ destination: r.value, count: r.clicks })),
    { destination: "default", count: Math.max(0, totalClicks - others) },
  ];
  return all
    .filter((d) => d.count > 0)
    .sort((x, y) => y.count - x.count || cmp(x.destination, y.destination));
}

/** Days as the documented `{date, count}`; hours as `{hour, count}` with the hour's start in UTC. */
export function seriesOf(
  rows: { bucket: string; clicks: number }[],
  interval: Interval,
): LinkAnalytics["time_series"] {
  return interval === "day"
    ? rows.map((r) => ({ date: r.bucket, count: Number(r.clicks) }))
    : rows.map((r) => ({ hour: `${r.bucket.replace(" ", "T")}Z`, count: Number(r.clicks) }));
}
