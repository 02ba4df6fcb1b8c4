// One link's analytics (SPEC 2.5 plus bot_clicks and unique_visitors), from the daily and hourly
// rollups and, for partial hours at the ends of a period, from raw clicks (period.ts). Bots are
// excluded from every count.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type AnalyticsInterval, type LinkAnalytics, TOP_LIST_SIZE } from "@kurz/contracts";
import { linkUnit, type Period, periodSql, rawClicks } from "./period.ts";

export interface LinkRef {
  link_id: string;
  account_id: string;
  short_code: string;
}

type Dim = "referrer" | "country" | "city" | "device" | "browser" | "os";

// The same breakdown the link_dim_hourly view makes (migration 0003), for raw clicks. Source columns
// are renamed first so that no output alias (country) can shadow the column it is computed from.
const RAW_DIMENSIONS = `
  SELECT tupleElement(d, 1) AS dim, tupleElement(d, 2) AS value, tupleElement(d, 3) AS country, count() AS clicks
  FROM raw
  ARRAY JOIN [
    ('referrer', src_referrer, ''),
    ('country', src_country, ''),
    ('city', src_city, if(src_city = '', '', src_country)),
    ('device', src_device, ''),
    ('browser', src_browser, ''),
    ('os', src_os, '')
  ] AS d
  WHERE is_bot = 0
  GROUP BY dim, value, country`;

const unionAll = (parts: (string | null)[]) => {
  const present = parts.filter((p): p is string => p !== null);
  return present.length > 0 ? present.join(" UNION ALL ") : null;
};

// Byte order, as ClickHouse sorts strings (ties in a top list must come out as they did in SQL).
const cmp = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));

/** `time_series` entries: a date, or with `interval=hour` the hour's start as an ISO datetime. */
export type Interval = AnalyticsInterval;

export async function linkStats(
  ch: KurzClickHouse,
  link: LinkRef,
  period: Period | null,
  interval: Interval = "day",
  /** Tests set it to 0 to check the day-based split on short periods too. */
  hourlyOnlyMaxMs?: number,
): Promise<LinkAnalytics> {
  // Breakdowns and visitors use whole days where they can (linkUnit: not in a short period with times
  // of day); the series splits by its own interval.
  const unit = linkUnit(period, hourlyOnlyMaxMs);
  const p = periodSql(period, unit);
  const s = interval === "day" || unit === "hour" ? p : periodSql(period, "hour");
  const params = { ...p.params, ...s.params, id: link.link_id, account: link.account_id };
  const ofLink = "account_id = {account:UUID} AND link_id = {id:UUID}";

  const bucket =
    interval === "day"
      ? { hour: "toDate(hour)", ts: "toDate(ts)" }
      : { hour: "hour", ts: "toDateTime(toStartOfHour(ts), 'UTC')" };
  const series = unionAll([
    s.days !== null
      ? `SELECT day AS bucket, sum(clicks) AS clicks, sum(bot_clicks) AS bots FROM link_daily
         WHERE ${ofLink}${s.days} GROUP BY day`
      : null,
    s.hours !== null
      ? `SELECT ${bucket.hour} AS bucket, sum(clicks) AS clicks, sum(bot_clicks) AS bots FROM link_hourly
         WHERE ${ofLink}${s.hours} GROUP BY bucket`
      : null,
    s.raw !== null
      ? `SELECT ${bucket.ts} AS bucket, countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bots
         FROM raw GROUP BY bucket`
      : null,
  ]);
  const dims = unionAll([
    p.days !== null
      ? // Without a period, the all-time table holds the same sums in far fewer rows.
        `SELECT toString(dim) AS dim, value, toString(country) AS country, sum(clicks) AS clicks
         FROM ${period ? "link_dim_daily" : "link_dim_total"}
         WHERE link_id = {id:UUID}${p.days} GROUP BY dim, value, country`
      : null,
    p.hours !== null
      ? `SELECT toString(dim) AS dim, value, toString(country) AS country, sum(clicks) AS clicks
         FROM link_dim_hourly WHERE link_id = {id:UUID}${p.hours} GROUP BY dim, value, country`
      : null,
    p.raw !== null ? RAW_DIMENSIONS : null,
  ]);
  // Visitor hashes are salted per day: a day's hours and raw minutes merge into one set per day,
  // and days add up.
  const visitors = unionAll([
    p.days !== null
      ? `SELECT day, visitors FROM link_visitors_daily WHERE link_id = {id:UUID}${p.days}`
      : null,
    p.hours !== null
      ? `SELECT toDate(hour) AS day, visitors FROM link_visitors_hourly WHERE link_id = {id:UUID}${p.hours}`
      : null,
    p.raw !== null
      ? `SELECT toDate(ts) AS day, uniqExactState(visitor_hash) AS visitors
         FROM raw WHERE is_bot = 0 GROUP BY day`
      : null,
  ]);

  // One query per request: on embedded ClickHouse every query has a fixed cost (session settings,
  // parsing, planning, result formatting) that three separate queries paid three times. The three
  // answers share one row shape, told apart by `kind`: s = series bucket, d = breakdown row,
  // v = unique visitors.
  const parts = [
    series
      ? `SELECT 's' AS kind, toString(bucket) AS a, '' AS b, '' AS c, sum(clicks) AS n, sum(bots) AS bots
         FROM (${series}) GROUP BY bucket`
      : null,
    dims
      ? // Unknown values ('') are left out of the lists, except direct traffic among referrers.
        `SELECT * FROM (
           SELECT 'd' AS kind, dim AS a, value AS b, country AS c, sum(clicks) AS n, toUInt64(0) AS bots
           FROM (${dims}) WHERE value != '' OR dim = 'referrer'
           GROUP BY dim, value, country HAVING n > 0
           ORDER BY a, n DESC, b, c LIMIT ${TOP_LIST_SIZE} BY a)`
      : null,
    visitors
      ? `SELECT 'v' AS kind, '' AS a, '' AS b, '' AS c, toUInt64(sum(v)) AS n, toUInt64(0) AS bots
         FROM (SELECT day, uniqExactMerge(visitors) AS v FROM (${visitors}) GROUP BY day)`
      : null,
  ];
  const all = unionAll(parts);
  // Every raw source reads the same partial hours (s.raw equals p.raw whenever it is set), named
  // once here. ClickHouse inlines it in each branch; reading it once instead (`AS MATERIALIZED`, an
  // experimental setting) was measured and made no difference (docs/benchmarks.md, analytics).
  const rawWhere = p.raw ?? s.raw;
  const rawCte =
    rawWhere !== null
      ? `WITH raw AS (${rawClicks(
          `ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
           city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser,
           toString(os) AS src_os`,
          `link_id = {id:UUID}${rawWhere}`,
        )}) `
      : "";
  const result = all
    ? await ch.query<{ kind: "s" | "d" | "v"; a: string; b: string; c: string; n: number; bots: number }>(
        `${rawCte}SELECT kind, a, b, c, toUInt64(n) AS n, toUInt64(bots) AS bots FROM (${all})`,
        params,
      )
    : [];
  const rows = result
    .filter((r) => r.kind === "s")
    .map((r) => ({ bucket: r.a, clicks: Number(r.n), bots: Number(r.bots) }))
    .sort((x, y) => (x.bucket < y.bucket ? -1 : x.bucket > y.bucket ? 1 : 0));
  const breakdown = result
    .filter((r) => r.kind === "d")
    .map((r) => ({ dim: r.a as Dim, value: r.b, country: r.c, clicks: Number(r.n) }))
    .sort((x, y) => y.clicks - x.clicks || cmp(x.value, y.value) || cmp(x.country, y.country));
  const uniques = result.filter((r) => r.kind === "v").map((r) => ({ visitors: Number(r.n) }));

  const of = (dim: Dim) => breakdown.filter((r) => r.dim === dim);
  const buckets = rows.filter((r) => Number(r.clicks) > 0);
  return {
    link_id: link.link_id,
    short_code: link.short_code,
    total_clicks: buckets.reduce((n, r) => n + Number(r.clicks), 0),
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
    unique_visitors: Number(uniques[0]?.visitors ?? 0),
  };
}

/** Days as SPEC's `{date, count}`; hours as `{hour, count}` with the hour's start in UTC. */
export function seriesOf(
  rows: { bucket: string; clicks: number }[],
  interval: Interval,
): LinkAnalytics["time_series"] {
  return interval === "day"
    ? rows.map((r) => ({ date: r.bucket, count: Number(r.clicks) }))
    : rows.map((r) => ({ hour: `${r.bucket.replace(" ", "T")}Z`, count: Number(r.clicks) }));
}
