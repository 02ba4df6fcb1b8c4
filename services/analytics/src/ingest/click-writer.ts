// Writes clicks to ClickHouse exactly once. The bus delivers at least once, and although `clicks`
// collapses a copy of a click, the materialized views that feed the rollups add up every insert.
// So before inserting, the writer drops clicks that are already stored (a redelivery after a crash
// or a rebalance, or a publisher retry), copies within the batch, and clicks of links known to be
// deleted (in flight when the link went; their code may already belong to a new link).
// That check and the insert are two steps, so two live consumers writing the same clicks at once
// (a rebalance, a consumer that outlived its session, a reclaimed stream entry) could both find a
// click missing. Each block the consumer hands in (a run of a Kafka partition, or a Redis batch:
// decision 0033; a single message before it, decision 0028) is therefore inserted on its own with a
// deduplication token derived from its click ids: ClickHouse stores the first of two inserts of the
// same block and drops the other, in the raw table and in every rollup (migration 0005). This holds
// only if every consumer cuts the same blocks, which Kafka runs guarantee (packages/bus kafka-runs.ts).
// One insert is not atomic across those tables either: each commits its own part, raw clicks first.
// A consumer killed in between leaves clicks stored without their rollup rows, and leaving them out
// on redelivery would lose them from every count. So a click is left out only when *another* block
// stored it, or when this block's insert completed (`click_messages`); a block whose insert was
// interrupted is completed (decision 0030; if the redelivery is cut differently, from its own raw
// rows: decision 0033). How depends on where ClickHouse runs (decision 0049):
// - a server outlives the consumer, and an insert it abandons commits nothing more: the block is
//   inserted again, whole, with its token, which writes exactly the parts that are missing ("repeat");
// - embedded chDB dies with the consumer, possibly between recording a block in a table's
//   deduplication log and committing its part, and then drops the repeat as a copy. But it has one
//   writer, the consumer itself: the rollups of the block's links are rebuilt from their raw clicks
//   ("rebuild"), and inserts carry no token, which nothing else needs there.
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
}

/** The clicks of one block (a run, a batch, or one bus message): inserted, and deduplicated, as a whole. */
export type ClickMessage = ClickRow[];

/** How an interrupted insert is completed (the header above); the default follows `ch.kind`. */
export type Completion = "repeat" | "rebuild";

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
  completion: Completion = ch.kind === "chdb" ? "rebuild" : "repeat",
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
  // own raw rows, or no one would ever complete it (decision 0033).
  const own = new Set(perMessage.map((m) => m.token));
  const others = new Set<string>();
  for (const tokens of stored.values()) for (const t of tokens) if (t !== "" && !own.has(t)) others.add(t);
  const complete = await completedMessages(ch, [...storedBefore, ...others]);
  const interruptedOthers = [...others].filter((t) => !complete.has(t));
  // Links whose rollups are rebuilt from their raw clicks, once this batch's inserts are done.
  const rebuild = new Set<string>();
  for (const token of interruptedOthers) {
    if (completion === "rebuild") {
      for (const id of await linksStoredBy(ch, token)) rebuild.add(id);
      continue;
    }
    const rows = await rowsStoredBy(ch, token);
    for (const [month, rowsOfMonth] of byMonth(rows))
      await insertRows(ch, rowsOfMonth, completion, token, month);
  }
  let deletedLinks = 0;
  const inserted: ClickRow[] = [];
  const completed: ClickRow[] = [];
  const written: string[] = [];
  for (const { token, rows } of perMessage) {
    // Kept in message order, so that an interrupted insert repeated makes the same blocks.
    const toWrite: ClickRow[] = [];
    let interrupted = false;
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
        interrupted = true;
        completed.push(r);
        if (completion === "repeat") toWrite.push(r);
        else rebuild.add(r.link_id);
      }
    }
    if (toWrite.length > 0) {
      // One insert per month: `clicks` is partitioned by month, and an insert is deduplicated per
      // partition block, so each block gets its own token (the same for every consumer of the message).
      for (const [month, rowsOfMonth] of byMonth(toWrite))
        await insertRows(ch, rowsOfMonth, completion, token, month);
    }
    if (toWrite.length > 0 || interrupted) written.push(token);
  }
  const toRebuild = [...rebuild].filter((id) => !deleted.has(id));
  await rebuildRollups(ch, toRebuild);
  // Only once every insert of the batch returned: a message recorded here has all its blocks.
  written.push(...interruptedOthers);
  if (written.length > 0) await recordCompleted(ch, written);
  return {
    inserted,
    completed,
    duplicates: total - deletedLinks - inserted.length - completed.length,
    deletedLinks,
  };
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
async function insertRows(
  ch: KurzClickHouse,
  rows: ClickRow[],
  completion: Completion,
  token: string,
  month: string,
): Promise<void> {
  const blockToken = `${token}:${month}`;
  if (!/^[A-Za-z0-9_:.-]+$/.test(blockToken)) throw new Error(`unexpected deduplication token ${blockToken}`);
  // Settings go in the statement, not in clickhouse_settings: chDB would keep those for the whole
  // session (packages/clickhouse, PINNED_SETTINGS). Without deduplication, chDB would still drop a
  // block by its content (deduplicate_insert, on by default since ClickHouse 26.2).
  const settings =
    completion === "repeat"
      ? `insert_deduplicate = 1, insert_deduplication_token = '${blockToken}', ` +
        "deduplicate_blocks_in_dependent_materialized_views = 1"
      : "deduplicate_insert = 'disable'";
  await ch.raw.insert({
    table: `clicks (${COLUMNS.join(", ")}, message_token) SETTINGS ${settings}`,
    values: rows.map((r) => [...COLUMNS.map((c) => r[c]), token]),
    format: "JSONCompactEachRow",
  });
}

/**
 * Empties these links' rollups and feeds their stored clicks through the views again (click_feed,
 * migration 0010): exact whatever part of an interrupted insert reached each rollup, because chDB
 * has no other writer. Repeated whole if interrupted itself (its block is recorded complete only
 * after). Costs a read of each link's clicks, on the rare path of an insert cut short by a crash.
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

/** The links of the clicks a block stored (a block of another cut, to rebuild them). */
async function linksStoredBy(ch: KurzClickHouse, token: string): Promise<string[]> {
  const rows = await ch.query<{ id: string }>(
    "SELECT DISTINCT toString(link_id) AS id FROM clicks PREWHERE message_token = {token:String}",
    { token },
  );
  return rows.map((r) => r.id);
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
