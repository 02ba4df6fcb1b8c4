// Where the raw partial hours of a "times of day" link request cost, and whether fewer sources
// would help (issue 18, decision 0036), in one process:
// `node --import tsx infra/bench/_analytics-range-sources.ts <chdb path> <seed.json> [rounds]` on a
// data directory seeded as for _analytics-range-profile.ts. Builds (once, if missing) a prototype
// table `link_stats_hourly` in that directory: the three hourly rollups in one table of
// `kind, a, b, c, n, bots, vs` rows, backfilled from `clicks FINAL`; it is not a migration and not
// fed by ingest. Then times, round robin: the dates; the times-of-day request as shipped (4 sources);
// its SQL without the raw source (3); the prototype + raw (2); a second prototype of hourly and
// per-click rows in one table (1); and the raw source's steps on their
// own (bare read, columns materialized, ARRAY JOIN and grouping, the request's outer query).
// Run it under `flock /tmp/bench.lock`.
import { readFileSync } from "node:fs";
import { createClickHouse, type KurzClickHouse, type QueryParams } from "@kurz/clickhouse";
import { linkStats } from "../../services/analytics/src/queries/link-stats.ts";
import { periodOf, periodSql, rawClicks } from "../../services/analytics/src/queries/period.ts";
import { printInterleaved, type Variant } from "./_interleaved.ts";

const [path, seedFile, roundsArg] = process.argv.slice(2);
if (!path || !seedFile)
  throw new Error("usage: _analytics-range-sources.ts <chdb path> <seed.json> [rounds]");
const rounds = Number(roundsArg ?? 60);
const { link } = JSON.parse(readFileSync(seedFile, "utf8"));
const D = 86_400_000;
const ch = await createClickHouse({ path, database: "kurz" });
try {
  const [have] = await ch.query<{ n: number }>(
    "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'link_stats_hourly'",
  );
  if (!have?.n) {
    await ch.command(`CREATE TABLE IF NOT EXISTS link_stats_hourly (
      link_id UUID, hour DateTime('UTC'), kind Enum8('s' = 1, 'd' = 2, 'v' = 3), a LowCardinality(String), b String, c LowCardinality(String),
      n SimpleAggregateFunction(sum, UInt64), bots SimpleAggregateFunction(sum, UInt64), vs AggregateFunction(uniqExact, UInt64))
      ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour) ORDER BY (link_id, hour, kind, a, b, c)`);
    await ch.command(`INSERT INTO link_stats_hourly
      SELECT link_id, hour, kind, a, b, c, sum(n1), sum(bots1), uniqExactStateIf(visitor_hash, kind = 'v') FROM (
        SELECT link_id, toStartOfHour(ts) AS hour, tupleElement(r, 1) AS kind, tupleElement(r, 2) AS a, tupleElement(r, 3) AS b, tupleElement(r, 4) AS c,
               toUInt64(tupleElement(r, 5)) AS n1, toUInt64(tupleElement(r, 6)) AS bots1, visitor_hash
        FROM (SELECT link_id, ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
               city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser, toString(os) AS src_os FROM clicks FINAL)
        ARRAY JOIN arrayConcat([('s', '', '', '', toUInt8(is_bot = 0), is_bot)],
          if(is_bot = 0, [('d', 'referrer', src_referrer, '', 1, 0), ('d', 'country', src_country, '', 1, 0),
            ('d', 'city', src_city, if(src_city = '', '', src_country), 1, 0), ('d', 'device', src_device, '', 1, 0),
            ('d', 'browser', src_browser, '', 1, 0), ('d', 'os', src_os, '', 1, 0), ('v', '', '', '', 0, 0)], [])) AS r)
      GROUP BY link_id, hour, kind, a, b, c`);
    await ch.command("OPTIMIZE TABLE link_stats_hourly FINAL");
  }
  // The second prototype: the hourly rows (level 0) and, for the last 10 days only, each click's
  // rows of the request's shape (level 1) in one table, so the request is one read. Per-click rows
  // are not deduplicated by merges here (a prototype for timing, not for ingest).
  const [haveMixed] = await ch.query<{ n: number }>(
    "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'link_stats_mixed'",
  );
  if (!haveMixed?.n) {
    await ch.command(`CREATE TABLE IF NOT EXISTS link_stats_mixed (link_id UUID, level UInt8, hour DateTime('UTC'), ts DateTime64(3, 'UTC'), click_id UUID,
      kind Enum8('s' = 1, 'd' = 2, 'v' = 3), a LowCardinality(String), b String, c LowCardinality(String),
      n SimpleAggregateFunction(sum, UInt64), bots SimpleAggregateFunction(sum, UInt64), vs AggregateFunction(uniqExact, UInt64))
      ENGINE = AggregatingMergeTree PARTITION BY toYYYYMM(hour) ORDER BY (link_id, level, hour, ts, click_id, kind, a, b, c)`);
    await ch.command(
      `INSERT INTO link_stats_mixed SELECT link_id, 0, hour, hour, toUUID('00000000-0000-0000-0000-000000000000'), kind, a, b, c, n, bots, vs FROM link_stats_hourly`,
    );
    await ch.command(`INSERT INTO link_stats_mixed
      SELECT link_id, 1, toStartOfHour(ts), ts, click_id, tupleElement(r, 1), tupleElement(r, 2), tupleElement(r, 3), tupleElement(r, 4),
        toUInt64(tupleElement(r, 5)), toUInt64(tupleElement(r, 6)), if(tupleElement(r, 1) = 'v', initializeAggregation('uniqExactState', visitor_hash), arrayReduce('uniqExactState', emptyArrayUInt64()))
      FROM (SELECT click_id, link_id, ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
             city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser, toString(os) AS src_os FROM clicks FINAL WHERE ts > now() - INTERVAL 10 DAY)
      ARRAY JOIN arrayConcat([('s', '', '', '', toUInt8(is_bot = 0), is_bot)],
        if(is_bot = 0, [('d', 'referrer', src_referrer, '', 1, 0), ('d', 'country', src_country, '', 1, 0),
          ('d', 'city', src_city, if(src_city = '', '', src_country), 1, 0), ('d', 'device', src_device, '', 1, 0),
          ('d', 'browser', src_browser, '', 1, 0), ('d', 'os', src_os, '', 1, 0), ('v', '', '', '', 0, 0)], [])) AS r`);
    await ch.command("OPTIMIZE TABLE link_stats_mixed FINAL");
  }
  const [last] = await ch.query<{ m: string }>("SELECT toUnixTimestamp64Milli(max(ts)) AS m FROM clicks");
  const now = Number(last?.m) - 20 * 60_000;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const dates = periodOf({ start: day(now - 7 * D), end: day(now) })!;
  const times = periodOf({ start: new Date(now - 7 * D).toISOString(), end: new Date(now).toISOString() })!;
  // The request's SQL, taken from linkStats itself, so the variants below cut up what ships.
  let cap: [string, QueryParams] = ["", {}];
  const q = ch.query.bind(ch);
  const spy: KurzClickHouse = Object.assign(Object.create(ch), {
    query: <T>(sql: string, params: QueryParams = {}) => {
      cap = [sql, params];
      return q<T>(sql, params);
    },
  });
  await linkStats(spy, link, times);
  const [sql, params] = cap;
  const cut = sql.lastIndexOf(" UNION ALL ");
  const rest = sql.slice(cut + 11);
  const m = /\)\s*WHERE kind != 'd'/.exec(rest)!;
  const raw = rest.slice(0, m.index);
  const tail = rest.slice(m.index);
  const prefix = sql.slice(0, sql.indexOf("FROM (") + 6);
  const p = periodSql(times, "hour");
  const combined = `SELECT toString(kind) AS kind, if(kind = 'd', toString(a), toString(toDate(hour))) AS a, b, toString(c) AS c,
    toUInt64(n) AS n, toUInt64(bots) AS bots, vs FROM link_stats_hourly WHERE link_id = {id:UUID}${p.hours}`;
  const csql = `${prefix}${combined} UNION ALL ${raw}${tail}`;
  const one = `SELECT toString(kind) AS kind, if(kind = 'd', toString(a), toString(toDate(hour))) AS a, b, toString(c) AS c,
    toUInt64(n) AS n, toUInt64(bots) AS bots, vs FROM link_stats_mixed
    WHERE link_id = {id:UUID} AND ((level = 0${p.hours}) OR (level = 1${p.raw}))`;
  const osql = `${prefix}${one}${tail}`;
  // The same with a copy of a click (not yet merged away) dropped at query time: per-click rows once
  // per (click, row), hourly rows all kept (each insert's hourly row is a partial sum).
  const oneDedup = `SELECT toString(kind) AS kind, if(kind = 'd', toString(a), toString(toDate(hour))) AS a, b, toString(c) AS c,
    toUInt64(n) AS n, toUInt64(bots) AS bots, vs FROM link_stats_mixed
    WHERE link_id = {id:UUID} AND ((level = 0${p.hours}) OR (level = 1${p.raw}))
    LIMIT 1 BY click_id, kind, a, b, c, if(level = 0, rowNumberInAllBlocks(), 0)`;
  const odsql = `${prefix}${oneDedup}${tail}`;
  // Only v rows' visitor counts are read by linkStats (the shipped raw rows carry a state on every row).
  const norm = (rows: Record<string, unknown>[]) =>
    JSON.stringify(rows.map((r) => JSON.stringify({ ...r, v: r.kind === "v" ? r.v : 0 })).sort());
  const shipped = norm(await q(sql, params));
  if (shipped !== norm(await q(csql, params))) throw new Error("combined hourly prototype answers differ");
  if (shipped !== norm(await q(osql, params))) throw new Error("one-source prototype answers differ");
  if (shipped !== norm(await q(odsql, params)))
    throw new Error("one-source prototype, deduplicated, answers differ");
  const w = `link_id = {id:UUID}${p.raw}`;
  const cols = `ts, is_bot, visitor_hash, ifNull(referrer, '') AS src_referrer, toString(country) AS src_country,
    city AS src_city, toString(device_type) AS src_device, toString(browser) AS src_browser, toString(os) AS src_os`;
  const sqlNoRaw = sql.slice(0, cut) + tail;
  const sqlNoDedup = sql.replace(" LIMIT 1 BY click_id", "");
  if (sqlNoDedup === sql) throw new Error("the raw read's LIMIT 1 BY was not found");
  const variants: Variant[] = [
    ["SELECT 1", () => q("SELECT 1")],
    ["last 7 days (dates)", () => linkStats(ch, link, dates)],
    ["last 7 days with times of day (4 sources)", () => linkStats(ch, link, times)],
    ["times of day SQL without its raw source (3 sources)", () => q(sqlNoRaw, params)],
    // What the query-time copy check of the raw partial hours costs (the rollups have none: 0028).
    ["times of day, raw read without LIMIT 1 BY click_id (4 sources)", () => q(sqlNoDedup, params)],
    ["times of day, one combined hourly table + raw (2 sources)", () => q(csql, params)],
    ["times of day, one table of hourly and per-click rows (1 source)", () => q(osql, params)],
    ["the same, copies of a click dropped by LIMIT 1 BY (1 source)", () => q(odsql, params)],
    ["raw: bare read, count()", () => q(`SELECT count() FROM (${rawClicks("ts", w)})`, params)],
    [
      "raw: string columns materialized",
      () =>
        q(
          `SELECT sum(length(src_referrer) + length(src_city) + length(src_os)) FROM (${rawClicks(cols, w)})`,
          params,
        ),
    ],
    ["raw: the request's raw source (ARRAY JOIN), count()", () => q(`SELECT count() FROM (${raw})`, params)],
    ["raw: the request's raw source in its outer query", () => q(`${prefix}${raw}${tail}`, params)],
  ];
  await printInterleaved(variants, rounds);
} finally {
  await ch.close();
}
