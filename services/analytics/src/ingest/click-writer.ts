// Writes clicks to ClickHouse exactly once. The bus delivers at least once, and although `clicks`
// collapses a copy of a click, the materialized views that feed the rollups add up every insert.
// So before inserting, the writer drops clicks that are already stored (a redelivery after a crash
// or a rebalance, or a publisher retry), copies within the batch, and clicks of links known to be
// deleted (in flight when the link went; their code may already belong to a new link).
// That check and the insert are two steps, so two live consumers writing the same clicks at once
// (a rebalance, a consumer that outlived its session, a reclaimed stream entry) could both find a
// click missing. Each block the consumer hands in (a run of a Kafka partition, or a Redis batch:
// decision 0049; a single message before it, decision 0049) is therefore inserted on its own with a
// deduplication token derived from its click ids: ClickHouse stores the first of two inserts of the
// same block and drops the other, in the raw table and in every rollup (migration 0005). This holds
// only if every consumer cuts the same blocks, which Kafka runs guarantee (packages/bus kafka-runs.ts).
// One insert is not atomic across those tables either: each commits its own part, raw clicks first.
// A consumer killed in between leaves clicks stored without their rollup rows, and leaving them out
// on redelivery would lose them from every count. So a click is left out only when *another* block
// stored it, or when this block's insert completed (`click_messages`); a block whose insert was
// interrupted is inserted again, whole, with its token, which writes exactly the parts that are
// missing (migration 0006, decision 0049); if the redelivery is cut differently, the interrupted
// block is completed from its own raw rows (decision 0049).
// Embedded chDB dies with the consumer, and a kill can fall between a table's recording of a block
// in its deduplication log and the commit of the block's part: that table then drops the repeat as
// a copy. So with chDB ("checked", decision 0049) every rollup is then checked against the raw
// clicks over the repeated blocks' links and hours, and a link whose rollups fall short is rebuilt
// from its raw clicks; a new block that some table drops as a copy (the raw part's commit was cut) is
// stored again under a token of its own and checked the same way. A server outlives its consumers and
// never leaves such a record behind for one ("repeat", the repeat alone); its consumers could not
// rebuild anyway, as several may write a link.
// ("Message" below means such a block: the unit inserted and deduplicated as a whole.)
import { createHash } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import type { ClickRow } from "./click-rows.ts";

// Click ids are bound as query parameters, which a server receives in the URL: keep each look-up
// well under its URL limit (1 MiB by default). Embedded chDB has no URL, so one look-up does.
const lookupChunk = (ch: KurzClickHouse) => (ch.kind === "chdb" ? 100_000 : 2_000);

export interface WriteResult {
  /** Clicks stored for the first time. */
  inserted: ClickRow[];
  /**
   * Clicks of a message whose earlier insert was interrupted (their raw rows stored, maybe not all
   * their rollup rows): inserted again with the message's token, which stores only what is missing.
   */
  completed: ClickRow[];
  duplicates: number;
  deletedLinks: number;
  /** Links whose rollups a check found short after a repeat, rebuilt from their raw clicks ("checked"). */
  rebuiltLinks: number;
}

/** The clicks of one block (a run, a batch, or one bus message): inserted, and deduplicated, as a whole. */
export type ClickMessage = ClickRow[];

/** How an interrupted insert is completed (the header above); the default follows `ch.kind`. */
export type Completion = "repeat" | "checked";

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
 * `batch`: the clicks of one message, or a list of messages (each inserted with its own token). Only
 * clicks are deduplicated across messages; the tokens stop a message being inserted twice.
 */
export async function writeClicks(
  ch: KurzClickHouse,
  batch: ClickRow[] | ClickMessage[],
  completion: Completion = ch.kind === "chdb" ? "checked" : "repeat",
): Promise<WriteResult> {
  const messages = (batch.length > 0 && Array.isArray(batch[0]) ? batch : [batch]) as ClickMessage[];
  const total = messages.reduce((n, m) => n + m.length, 0);
  // A click is written with the first message that holds it.
  const seen = new Set<string>();
  const perMessage = messages.map((message) => {
    const token = messageToken(message);
    const rows: ClickRow[] = [];
    for (const row of message) {
      if (seen.has(row.click_id)) continue;
      seen.add(row.click_id);
      rows.push(row);
    }
    return { token, rows };
  });
  const all = perMessage.flatMap((m) => m.rows);

  const deleted = await deletedLinkIds(ch, [...new Set(all.map((r) => r.link_id))]);
  const stored = await storedClicks(
    ch,
    all.filter((r) => !deleted.has(r.link_id)),
  );
  // Messages that stored some of their own clicks before: a redelivery. Left out if that insert
  // completed; inserted again if it was interrupted.
  const storedBefore = perMessage
    .filter(({ token, rows }) => rows.some((r) => stored.get(r.click_id)?.has(token)))
    .map(({ token }) => token);
  // Blocks of *other* tokens that stored some of these clicks: another message's copy, or a block of
  // this consumer's cut before a crash whose redelivery is cut differently (a Redis batch reclaimed
  // together with another). If such a block's insert was interrupted, it is completed here from its
  // own raw rows, or no one would ever complete it (decision 0049).
  const own = new Set(perMessage.map((m) => m.token));
  const others = new Set<string>();
  for (const tokens of stored.values()) for (const t of tokens) if (t !== "" && !own.has(t)) others.add(t);
  const complete = await completedMessages(ch, [...storedBefore, ...others]);
  const interruptedOthers = [...others].filter((t) => !complete.has(t));
  // The clicks of interrupted blocks, repeated below: what "checked" compares the rollups over.
  const repeated: ClickRow[] = [];
  for (const token of interruptedOthers) {
    const rows = await rowsStoredBy(ch, token);
    for (const [month, rowsOfMonth] of byMonth(rows)) await insertRows(ch, rowsOfMonth, token, month);
    repeated.push(...rows);
  }
  let deletedLinks = 0;
  const inserted: ClickRow[] = [];
  const completed: ClickRow[] = [];
  const written: string[] = [];
  // A block none of whose clicks were stored has no deduplication record in any table, unless a kill
  // cut a commit of it (decision 0049). So if ClickHouse drops any block as a copy while the batch is
  // inserted, the fresh blocks are checked too: counted once around the whole batch, as in chDB only
  // this consumer inserts. (A repeat in the same batch raises the count as well; the fresh blocks are
  // then checked for nothing, and found whole: that takes a crash just before.)
  const fresh: { token: string; rows: ClickRow[] }[] = [];
  const duplicatesBefore = completion === "checked" ? await duplicatedBlocks(ch) : 0;
  for (const { token, rows } of perMessage) {
    // Kept in message order, so that an interrupted insert repeated makes the same blocks.
    const toWrite: ClickRow[] = [];
    let repeat = false;
    for (const r of rows) {
      if (deleted.has(r.link_id)) {
        deletedLinks++;
        continue;
      }
      const storedBy = stored.get(r.click_id);
      if (storedBy === undefined) {
        toWrite.push(r);
        inserted.push(r);
      } else if (storedBy.has(token) && !complete.has(token)) {
        toWrite.push(r);
        completed.push(r);
        repeat = true;
      }
    }
    if (toWrite.length === 0) continue;
    // One insert per month: `clicks` is partitioned by month, and an insert is deduplicated per
    // partition block, so each block gets its own token (the same for every consumer of the message).
    for (const [month, rowsOfMonth] of byMonth(toWrite)) await insertRows(ch, rowsOfMonth, token, month);
    if (completion === "checked" && !repeat) fresh.push({ token, rows: toWrite });
    written.push(token);
  }
  if (fresh.length > 0 && (await duplicatedBlocks(ch)) > duplicatesBefore) {
    // The raw part itself may be the one dropped: what `clicks` lacks goes in under a token of its own.
    const storedNow = await storedClicks(
      ch,
      fresh.flatMap((m) => m.rows),
    );
    for (const { token, rows } of fresh) {
      const lacking = rows.filter((r) => !storedNow.has(r.click_id));
      for (const [month, rowsOfMonth] of byMonth(lacking))
        await insertRows(ch, rowsOfMonth, token, `${month}:again`);
      repeated.push(...rows);
    }
  }
  repeated.push(...completed);
  let rebuiltLinks = 0;
  if (completion === "checked" && repeated.length > 0) {
    const short = (await linksWithShortRollups(ch, repeated)).filter((id) => !deleted.has(id));
    await rebuildRollups(ch, short);
    rebuiltLinks = short.length;
  }
  // Only once every insert of the batch returned: a message recorded here has all its blocks.
  written.push(...interruptedOthers);
  if (written.length > 0) await recordCompleted(ch, written);
  return {
    inserted,
    completed,
    duplicates: total - deletedLinks - inserted.length - completed.length,
    deletedLinks,
    rebuiltLinks,
  };
}

/**
 * ClickHouse's count of blocks it dropped as copies, since the engine started. In chDB only this
 * consumer inserts into tables that deduplicate, one batch at a time, so a rise during an insert is
 * that insert's.
 */
async function duplicatedBlocks(ch: KurzClickHouse): Promise<number> {
  const rows = await ch.query<{ n: number | string }>(
    "SELECT sum(value) AS n FROM system.events WHERE event = 'DuplicatedInsertedBlocks'",
  );
  return Number(rows[0]?.n ?? 0);
}

/** Same clicks, same token, whichever consumer computes it. */
function messageToken(message: ClickMessage): string {
  const hash = createHash("sha256");
  for (const row of message) hash.update(row.click_id);
  return `clicks:${hash.digest("base64url")}`;
}

function byMonth(rows: ClickRow[]): Map<string, ClickRow[]> {
  const out = new Map<string, ClickRow[]>();
  for (const row of rows) {
    const month = row.ts.slice(0, 7);
    const list = out.get(month);
    if (list) list.push(row);
    else out.set(month, [row]);
  }
  return out;
}

const COLUMNS = [
  "click_id",
  "link_id",
  "account_id",
  "short_code",
  "ts",
  "referrer",
  "country",
  "city",
  "device_type",
  "browser",
  "os",
  "is_bot",
  "visitor_hash",
  "host",
] as const satisfies readonly (keyof ClickRow)[];

/**
 * Rows as arrays (JSONCompactEachRow) rather than objects: parsing drops by about a third without
 * the repeated keys, and parsing is most of an insert's cost. Each row records the message that
 * stored it (`message_token`, the look-up's way to tell a redelivery from another message's copy).
 */
async function insertRows(ch: KurzClickHouse, rows: ClickRow[], token: string, month: string): Promise<void> {
  const blockToken = `${token}:${month}`;
  if (!/^[A-Za-z0-9_:.-]+$/.test(blockToken)) throw new Error(`unexpected deduplication token ${blockToken}`);
  await ch.raw.insert({
    // Settings go in the statement, not in clickhouse_settings: chDB would keep those for the whole
    // session (packages/clickhouse, PINNED_SETTINGS).
    table:
      `clicks (${COLUMNS.join(", ")}, message_token) SETTINGS insert_deduplicate = 1, ` +
      `insert_deduplication_token = '${blockToken}', deduplicate_blocks_in_dependent_materialized_views = 1`,
    values: rows.map((r) => [...COLUMNS.map((c) => r[c]), token]),
    format: "JSONCompactEachRow",
  });
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
  const inLinks = "link_id IN {links:Array(UUID)}";
  // The raw clicks of those hours (the day first: the sorting key's).
  const ofHours = `${inLinks} AND toDate(ts) IN {days:Array(Date)} AND toDateTime(toStartOfHour(ts)) IN {hours:Array(DateTime('UTC'))}`;
  const clicksByHour = `SELECT toString(link_id) AS l, toUnixTimestamp(toStartOfHour(ts)) AS b, count() AS n
    FROM clicks WHERE ${ofHours} GROUP BY l, b`;
  const pairs: [expected: string, actual: string][] = [
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
  // Each read once: clicksByHour is the reference of two rollups.
  const reads = new Map<string, Promise<Map<string, number>>>();
  const read = (sql: string) => {
    let result = reads.get(sql);
    if (!result) {
      result = ch
        .query<{ l: string; b: string | number; n: number | string }>(sql, params)
        .then((rows) => new Map(rows.map((r) => [`${r.l} ${r.b}`, Number(r.n)])));
      reads.set(sql, result);
    }
    return result;
  };
  const short = new Set<string>();
  for (const [expected, actual] of pairs) {
    const [want, have] = [await read(expected), await read(actual)];
    // Both ways: a key only one side has is a difference too.
    for (const key of new Set([...want.keys(), ...have.keys()]))
      if ((want.get(key) ?? 0) !== (have.get(key) ?? 0)) short.add(key.slice(0, key.indexOf(" ")));
  }
  return [...short];
}

/**
 * Empties these links' rollups and feeds their stored clicks through the views again (click_feed,
 * migration 0010). Exact because chDB has no other writer, and repeatable whole if interrupted
 * itself (its blocks are recorded complete only after). Reads every stored click of these links:
 * only for a link a check found short, which takes a kill in the middle of a commit.
 */
async function rebuildRollups(ch: KurzClickHouse, linkIds: string[]): Promise<void> {
  if (linkIds.length === 0) return;
  for (const table of ROLLUP_TABLES) {
    await ch.command(`DELETE FROM ${table} WHERE link_id IN {ids:Array(UUID)}`, { ids: linkIds });
  }
  await ch.command(
    `INSERT INTO click_feed (${COLUMNS.join(", ")})
     SELECT ${COLUMNS.join(", ")} FROM clicks FINAL WHERE link_id IN {ids:Array(UUID)}
     SETTINGS deduplicate_insert = 'disable'`,
    { ids: linkIds },
  );
}

async function deletedLinkIds(ch: KurzClickHouse, linkIds: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const chunk = lookupChunk(ch);
  for (let i = 0; i < linkIds.length; i += chunk) {
    const rows = await ch.query<{ id: string }>(
      "SELECT toString(link_id) AS id FROM links FINAL WHERE link_id IN {ids:Array(UUID)} AND deleted = 1",
      { ids: linkIds.slice(i, i + chunk) },
    );
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Click id → tokens of the messages that stored it (one, unless two messages raced). */
async function storedClicks(ch: KurzClickHouse, rows: ClickRow[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  // Sorted by link and time, each chunk touches few links and a narrow time range, which the
  // primary key (link_id, day) and the click_id min/max index turn into few granules.
  const sorted = [...rows].sort((a, b) =>
    a.link_id === b.link_id ? (a.click_id < b.click_id ? -1 : 1) : a.link_id < b.link_id ? -1 : 1,
  );
  const size = lookupChunk(ch);
  for (let i = 0; i < sorted.length; i += size) {
    const chunk = sorted.slice(i, i + size);
    const days = [...new Set(chunk.map((r) => r.ts.slice(0, 10)))];
    const found = await ch.query<{ id: string; token: string }>(
      `SELECT toString(click_id) AS id, message_token AS token FROM clicks
       WHERE link_id IN {links:Array(UUID)} AND toDate(ts) IN {days:Array(Date)} AND click_id IN {ids:Array(UUID)}`,
      {
        links: [...new Set(chunk.map((r) => r.link_id))],
        days,
        ids: chunk.map((r) => r.click_id),
      },
    );
    for (const r of found) {
      const tokens = out.get(r.id);
      if (tokens) tokens.add(r.token);
      else out.set(r.id, new Set([r.token]));
    }
  }
  return out;
}

/**
 * The raw rows a block stored, to insert them again under its token: its raw part is committed whole
 * (the first of an insert's parts), so these are exactly the rows its views were, or were to be, fed.
 * Scans `message_token` of the whole table: only after an interrupted insert redelivered in another cut.
 */
async function rowsStoredBy(ch: KurzClickHouse, token: string): Promise<ClickRow[]> {
  const rows = await ch.query<Record<(typeof COLUMNS)[number], string | number | null>>(
    `SELECT toString(click_id) AS click_id, toString(link_id) AS link_id, toString(account_id) AS account_id,
       short_code, toString(ts) AS ts, referrer, country, city, device_type, browser, os, is_bot,
       toString(visitor_hash) AS visitor_hash, host
     FROM clicks PREWHERE message_token = {token:String} ORDER BY link_id, ts, click_id`,
    { token },
  );
  return rows.map((r) => ({ ...r, is_bot: Number(r.is_bot) }) as ClickRow);
}

/** Which of these messages' inserts completed. Asked only on redelivery, so rarely. */
async function completedMessages(ch: KurzClickHouse, tokens: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const size = lookupChunk(ch);
  for (let i = 0; i < tokens.length; i += size) {
    const rows = await ch.query<{ token: string }>(
      "SELECT DISTINCT token FROM click_messages WHERE token IN {tokens:Array(String)}",
      { tokens: tokens.slice(i, i + size) },
    );
    for (const r of rows) out.add(r.token);
  }
  return out;
}

async function recordCompleted(ch: KurzClickHouse, tokens: string[]): Promise<void> {
  await ch.raw.insert({
    table: "click_messages (token)",
    values: tokens.map((t) => [t]),
    format: "JSONCompactEachRow",
  });
}
