// Invariant: in embedded chDB, a link's rollups hold exactly its stored clicks once a batch is recorded
// complete, even when a kill fell inside a table's commit. chDB runs in the consumer's process, and a
// kill between a table's recording of a block in its deduplication log and the commit of the block's
// part leaves that table dropping the block as a copy forever, so the repeat that completes an
// interrupted insert (exactly-once-insert.ts) cannot store it. After a repeat, every rollup is compared
// with what it is made of over the repeated clicks' links and hours; a link that differs is rebuilt from
// its raw clicks. Exact because chDB has one writer handling one batch at a time, so every other block
// of those links and hours is whole when the check runs (decision 0049, §6; the rollups: decision 0048).
import type { KurzClickHouse } from "@kurz/clickhouse";
import { CLICK_COLUMNS, type ClickRow } from "./click-rows.ts";

/**
 * The tables the click views feed, each keyed by link: what a rebuild empties and refills for a link,
 * and what a deleted link's clicks are deleted from (links.ts, with `clicks`).
 */
export const ROLLUP_TABLES = [
  "link_hourly",
  "link_daily",
  "link_visitors_hourly",
  "link_visitors_daily",
  "link_stats",
  "link_dim_total",
] as const;

/**
 * ClickHouse's count of blocks it dropped as copies, since the engine started. In chDB only this
 * consumer inserts into tables that deduplicate, one batch at a time, so a rise during an insert is
 * that insert's: a new block some table already held a record of.
 */
export async function duplicatedBlocks(ch: KurzClickHouse): Promise<number> {
  const rows = await ch.query<{ n: number | string }>(
    "SELECT sum(value) AS n FROM system.events WHERE event = 'DuplicatedInsertedBlocks'",
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Checks the rollups over the links and hours of `repeated` and rebuilds each link whose rollups fall
 * short (or run over), except links in `deleted`. Returns how many links were rebuilt.
 */
export async function repairRollups(
  ch: KurzClickHouse,
  repeated: ClickRow[],
  deleted: Set<string>,
): Promise<number> {
  const short = (await linksWithShortRollups(ch, repeated)).filter((id) => !deleted.has(id));
  await rebuildRollups(ch, short);
  return short.length;
}

type Bucketed = { l: string; b: string | number; n: number | string };

/** [expected, actual] reads of one check: both give a count per link and bucket (hour, day or none). */
function rollupChecks(): [expected: string, actual: string][] {
  const inLinks = "link_id IN {links:Array(UUID)}";
  // The raw clicks of those hours (the day first: the sorting key's).
  const ofHours = `${inLinks} AND toDate(ts) IN {days:Array(Date)} AND toDateTime(toStartOfHour(ts)) IN {hours:Array(DateTime('UTC'))}`;
  const clicksByHour = `SELECT toString(link_id) AS l, toUnixTimestamp(toStartOfHour(ts)) AS b, count() AS n
    FROM clicks WHERE ${ofHours} GROUP BY l, b`;
  return [
    // Per link and hour: all clicks, and unique human visitors.
    [
      clicksByHour,
      `SELECT toString(link_id) AS l, toUnixTimestamp(hour) AS b, sum(clicks) + sum(bot_clicks) AS n FROM link_hourly
       WHERE ${inLinks} AND hour IN {hours:Array(DateTime('UTC'))} GROUP BY l, b`,
    ],
    [
      clicksByHour,
      `SELECT toString(link_id) AS l, toUnixTimestamp(toDateTime(t)) AS b, sum(n) + sum(bots) AS n FROM link_stats
       WHERE ${inLinks} AND level = 'hour' AND kind = 's' AND toDateTime(t) IN {hours:Array(DateTime('UTC'))}
       GROUP BY l, b`,
    ],
    [
      `SELECT toString(link_id) AS l, toUnixTimestamp(toStartOfHour(ts)) AS b, uniqExact(visitor_hash) AS n FROM clicks
       WHERE ${ofHours} AND is_bot = 0 GROUP BY l, b`,
      `SELECT toString(link_id) AS l, toUnixTimestamp(hour) AS b, uniqExactMerge(visitors) AS n FROM link_visitors_hourly
       WHERE ${inLinks} AND hour IN {hours:Array(DateTime('UTC'))} GROUP BY l, b`,
    ],
    // Per link and day, against the hourly rows the daily ones are made of.
    [
      `SELECT toString(link_id) AS l, toString(toDate(hour)) AS b, sum(clicks) + sum(bot_clicks) AS n FROM link_hourly
       WHERE ${inLinks} AND toDate(hour) IN {days:Array(Date)} GROUP BY l, b`,
      `SELECT toString(link_id) AS l, toString(day) AS b, sum(clicks) + sum(bot_clicks) AS n FROM link_daily
       WHERE ${inLinks} AND day IN {days:Array(Date)} GROUP BY l, b`,
    ],
    [
      `SELECT toString(link_id) AS l, toString(toDate(t)) AS b, sum(n) + sum(bots) AS n FROM link_stats
       WHERE ${inLinks} AND level = 'hour' AND kind = 's' AND toDate(t) IN {days:Array(Date)} GROUP BY l, b`,
      `SELECT toString(link_id) AS l, toString(toDate(t)) AS b, sum(n) + sum(bots) AS n FROM link_stats
       WHERE ${inLinks} AND level = 'day' AND kind = 's' AND toDate(t) IN {days:Array(Date)} GROUP BY l, b`,
    ],
    [
      `SELECT toString(link_id) AS l, toString(toDate(hour)) AS b, uniqExactMerge(visitors) AS n
       FROM link_visitors_hourly WHERE ${inLinks} AND toDate(hour) IN {days:Array(Date)} GROUP BY l, b`,
      `SELECT toString(link_id) AS l, toString(day) AS b, uniqExactMerge(visitors) AS n
       FROM link_visitors_daily WHERE ${inLinks} AND day IN {days:Array(Date)} GROUP BY l, b`,
    ],
    // Per link, all time: the breakdown's human clicks (each counted once per dimension).
    [
      `SELECT toString(link_id) AS l, '' AS b, sum(clicks) AS n FROM link_daily WHERE ${inLinks} GROUP BY l`,
      `SELECT toString(link_id) AS l, '' AS b, sum(clicks) AS n FROM link_dim_total
       WHERE ${inLinks} AND dim = 'country' GROUP BY l`,
    ],
    // link_stats' click rows (kept 35 days: only clicks younger than 30 are looked for).
    [
      `SELECT toString(link_id) AS l, '' AS b, count() AS n FROM clicks
       WHERE ${ofHours} AND ts > now() - INTERVAL 30 DAY GROUP BY l`,
      `SELECT toString(link_id) AS l, '' AS b, sum(n) + sum(bots) AS n FROM link_stats
       WHERE ${inLinks} AND level = 'click' AND kind = 's' AND toDateTime(toStartOfHour(t)) IN {hours:Array(DateTime('UTC'))}
         AND t > now() - INTERVAL 30 DAY GROUP BY l`,
    ],
  ];
}

/**
 * The links whose rollups do not hold all their stored clicks, over the hours and days of `rows`:
 * each hourly rollup against the raw clicks of those hours, each daily one against its hourly
 * source, link_stats' click rows against the clicks, and the all-time breakdown against link_daily.
 * Every block of those links and hours is whole except the repeated ones (one consumer, one batch at
 * a time), so a difference is a block a table dropped. Reads those links' clicks of those hours.
 */
async function linksWithShortRollups(ch: KurzClickHouse, rows: ClickRow[]): Promise<string[]> {
  const params = {
    links: [...new Set(rows.map((r) => r.link_id))],
    hours: [...new Set(rows.map((r) => `${r.ts.slice(0, 13)}:00:00`))],
    days: [...new Set(rows.map((r) => r.ts.slice(0, 10)))],
  };
  // Each read once: the raw clicks by hour are the reference of two rollups.
  const reads = new Map<string, Promise<Map<string, number>>>();
  const read = (sql: string) => {
    let result = reads.get(sql);
    if (!result) {
      result = ch
        .query<Bucketed>(sql, params)
        .then((rows) => new Map(rows.map((r) => [`${r.l} ${r.b}`, Number(r.n)])));
      reads.set(sql, result);
    }
    return result;
  };
  const short = new Set<string>();
  for (const [expected, actual] of rollupChecks()) {
    const [want, have] = [await read(expected), await read(actual)];
    // Both ways: a key only one side has is a difference too.
    for (const key of new Set([...want.keys(), ...have.keys()]))
      if ((want.get(key) ?? 0) !== (have.get(key) ?? 0)) short.add(key.slice(0, key.indexOf(" ")));
  }
  return [...short];
}

/**
 * Empties these links' rollups and feeds their stored clicks through the views again (click_feed,
 * decision 0049). Exact because chDB has no other writer, and repeatable whole if interrupted
 * itself (its blocks are recorded complete only after). Reads every stored click of these links:
 * only for a link a check found short, which takes a kill in the middle of a commit.
 */
async function rebuildRollups(ch: KurzClickHouse, linkIds: string[]): Promise<void> {
  if (linkIds.length === 0) return;
  for (const table of ROLLUP_TABLES) {
    await ch.command(`DELETE FROM ${table} WHERE link_id IN {ids:Array(UUID)}`, { ids: linkIds });
  }
  await ch.command(
    `INSERT INTO click_feed (${CLICK_COLUMNS.join(", ")})
     SELECT ${CLICK_COLUMNS.join(", ")} FROM clicks FINAL WHERE link_id IN {ids:Array(UUID)}
     SETTINGS deduplicate_insert = 'disable'`,
    { ids: linkIds },
  );
}
