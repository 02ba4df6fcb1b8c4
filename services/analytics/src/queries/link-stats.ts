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

// Every source of a request gives rows of one shape, told apart by `kind`: s = a series bucket
// (a = the bucket, n = human clicks, bots = bot clicks), d = a breakdown row (a = the dimension,
// b = its value, c = a city's country, n = clicks), v = one day's unique visitors (a = the day,
// vs = the visitor set). One GROUP BY over all of them answers the whole request.
const EMPTY_VISITORS = "arrayReduce('uniqExactState', emptyArrayUInt64())";
const shape = (kind: string, a: string, b: string, c: string, n: string, bots: string, vs: string) =>
  `SELECT '${kind}' AS kind, ${a} AS a, ${b} AS b, ${c} AS c, toUInt64(${n}) AS n, toUInt64(${bots}) AS bots, ${vs} AS vs`;

// Raw clicks of the partial hours are one source: each click becomes its series row and, unless it
// is a bot, its six breakdown rows (the same breakdown the link_dim_hourly view makes, migration
// 0003) and its visitor row. Source columns are renamed first so that no output alias (country) can
// shadow the column it is computed from. Every row carries the click's visitor state; only the v
// rows' sums are read.
const rawRows = (bucket: string, clicks: string) => `
  SELECT tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b, tupleElement(r, 4) AS c,
         toUInt64(tupleElement(r, 5)) AS n, toUInt64(tupleElement(r, 6)) AS bots,
         initializeAggregation('uniqExactState', visitor_hash) AS vs
  FROM (${clicks})
  ARRAY JOIN arrayConcat(
    [('s', toString(${bucket}), '', '', toUInt8(is_bot = 0), is_bot)],
    if(is_bot = 0, [
      ('d', 'referrer', src_referrer, '', 1, 0),
      ('d', 'country', src_country, '', 1, 0),
      ('d', 'city', src_city, if(src_city = '', '', src_country), 1, 0),
      ('d', 'device', src_device, '', 1, 0),
      ('d', 'browser', src_browser, '', 1, 0),
      ('d', 'os', src_os, '', 1, 0),
      ('v', toString(toDate(ts)), '', '', 0, 0)
    ], [])
  ) AS r`;

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
  const E = EMPTY_VISITORS;

  const bucket =
    interval === "day"
      ? { day: "toString(day)", hour: "toString(toDate(hour))", ts: "toDate(ts)" }
      : { day: "toString(day)", hour: "toString(hour)", ts: "toDateTime(toStartOfHour(ts), 'UTC')" };
  // On chDB each table a query reads costs a fixed few milliseconds whatever its size
  // (docs/benchmarks.md, analytics), so the request reads each source once: up to three rollups per
  // unit and the raw partial hours once, not once per answer.
  const sources = [
    s.days !== null
      ? `${shape("s", bucket.day, "''", "''", "clicks", "bot_clicks", E)} FROM link_daily WHERE ${ofLink}${s.days}`
      : null,
    s.hours !== null
      ? `${shape("s", bucket.hour, "''", "''", "clicks", "bot_clicks", E)} FROM link_hourly WHERE ${ofLink}${s.hours}`
      : null,
    p.days !== null
      ? // Without a period, the all-time table holds the same sums in far fewer rows.
        `${shape("d", "toString(dim)", "value", "toString(country)", "clicks", "0", E)}
         FROM ${period ? "link_dim_daily" : "link_dim_total"} WHERE link_id = {id:UUID}${p.days}`
      : null,
    p.hours !== null
      ? `${shape("d", "toString(dim)", "value", "toString(country)", "clicks", "0", E)}
         FROM link_dim_hourly WHERE link_id = {id:UUID}${p.hours}`
      : null,
    // Visitor hashes are salted per day: a day's hours and raw minutes merge into one set per day,
    // and days add up.
    p.days !== null
      ? `${shape("v", "toString(day)", "''", "''", "0", "0", "visitors")}
         FROM link_visitors_daily WHERE link_id = {id:UUID}${p.days}`
      : null,
    p.hours !== null
      ? `${shape("v", "toString(toDate(hour))", "''", "''", "0", "0", "visitors")}
         FROM link_visitors_hourly WHERE link_id = {id:UUID}${p.hours}`
      : null,
  ].filter((q): q is string => q !== null);
  // The series' raw spans equal the breakdowns' whenever either is set (both are the period's
  // partial hours at its ends), so one raw read serves both.
  const rawWhere = p.raw ?? s.raw;
  if (rawWhere !== null)
    sources.push(
      rawRows(
        bucket.ts,
        rawClicks(
          `ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
           city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser,
           toString(os) AS src_os`,
          `link_id = {id:UUID}${rawWhere}`,
        ),
      ),
    );

  // Unknown values ('') are left out of the breakdowns, except direct traffic among referrers; each
  // breakdown keeps its top ${TOP_LIST_SIZE} (a series bucket or a day is one row per (kind, a)).
  const result =
    sources.length > 0
      ? await ch.query<{
          kind: "s" | "d" | "v";
          a: string;
          b: string;
          c: string;
          n: number;
          bots: number;
          v: number;
        }>(
          `SELECT kind, a, b, c, sum(n) AS n, sum(bots) AS bots, toUInt64(uniqExactMerge(vs)) AS v
           FROM (${sources.join(" UNION ALL ")})
           WHERE kind != 'd' OR b != '' OR a = 'referrer'
           GROUP BY kind, a, b, c
           HAVING kind != 'd' OR n > 0
           ORDER BY kind, a, n DESC, b, c
           LIMIT ${TOP_LIST_SIZE} BY kind, a`,
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
  const visitors = result.filter((r) => r.kind === "v").reduce((n, r) => n + Number(r.v), 0);

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
    unique_visitors: visitors,
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
