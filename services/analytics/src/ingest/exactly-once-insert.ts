// Invariant: a click the bus delivers is stored once in `clicks` and counted once in every rollup,
// through redeliveries, publisher retries and live consumers racing on the same messages. Clicks
// already stored, and clicks of deleted links, are left out; each block the consumer hands in (a Kafka
// run, a Redis batch) is inserted with a token derived from its click ids, so ClickHouse keeps only the
// first of two inserts of it, in every table. A block is recorded complete only once all its inserts
// returned; one that stored clicks without being recorded was interrupted and is inserted again, whole,
// under its token. Decision 0049 gives the reasons and the limits; rollup-repair.ts covers chDB's kills.
// ("Message" below means such a block: the unit inserted and deduplicated as a whole.)
import { createHash, randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { CLICK_COLUMNS, type ClickRow } from "./click-rows.ts";
import { duplicatedBlocks, repairRollups } from "./rollup-repair.ts";

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

/**
 * How an interrupted insert is completed; the default follows `ch.kind`. "repeat": inserted again under
 * its token. "checked" (chDB): repeated, then the rollups checked and repaired (rollup-repair.ts). A
 * server outlives its consumers and never needs the check; its consumers could not rebuild anyway, as
 * several may write a link.
 */
export type Completion = "repeat" | "checked";

/** A message's token and its clicks not already in an earlier message of the batch. */
type Block = { token: string; rows: ClickRow[] };

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
  const blocks = firstCopies(messages);
  const all = blocks.flatMap((m) => m.rows);

  const deleted = await deletedLinkIds(ch, [...new Set(all.map((r) => r.link_id))]);
  const stored = await storedClicks(
    ch,
    all.filter((r) => !deleted.has(r.link_id)),
  );
  // Messages that stored some of their own clicks before: a redelivery. Left out if that insert
  // completed; inserted again if it was interrupted.
  const storedBefore = blocks
    .filter(({ token, rows }) => rows.some((r) => stored.get(r.click_id)?.has(token)))
    .map(({ token }) => token);
  // Blocks of *other* tokens that stored some of these clicks: another message's copy, or a block of
  // this consumer's cut before a crash whose redelivery is cut differently (a Redis batch reclaimed
  // together with another). If such a block's insert was interrupted, it is completed here from its
  // own raw rows, or no one would ever complete it (decision 0049).
  const own = new Set(blocks.map((m) => m.token));
  const others = new Set<string>();
  for (const tokens of stored.values()) for (const t of tokens) if (t !== "" && !own.has(t)) others.add(t);
  const complete = await completedMessages(ch, [...storedBefore, ...others]);
  const interruptedOthers = [...others].filter((t) => !complete.has(t));
  // The clicks of interrupted blocks, repeated: what "checked" compares the rollups over.
  const repeated = await repeatBlocks(ch, interruptedOthers);

  const checked = completion === "checked";
  const duplicatesBefore = checked ? await duplicatedBlocks(ch) : 0;
  const written = await insertBlocks(ch, blocks, { deleted, stored, complete, checked });
  // A block none of whose clicks were stored has no deduplication record in any table, unless a kill
  // cut a commit of it (decision 0049). So if ClickHouse drops any block as a copy while the batch is
  // inserted, the fresh blocks are checked too: counted once around the whole batch, as in chDB only
  // this consumer inserts. (A repeat in the same batch raises the count as well; the fresh blocks are
  // then checked for nothing, and found whole: that takes a crash just before.)
  if (written.fresh.length > 0 && (await duplicatedBlocks(ch)) > duplicatesBefore) {
    repeated.push(...(await storeLacking(ch, written.fresh)));
  }
  repeated.push(...written.completed);
  const rebuiltLinks = checked && repeated.length > 0 ? await repairRollups(ch, repeated, deleted) : 0;
  // Only once every insert of the batch returned: a message recorded here has all its blocks.
  const tokens = [...written.tokens, ...interruptedOthers];
  if (tokens.length > 0) await recordCompleted(ch, tokens);
  return {
    inserted: written.inserted,
    completed: written.completed,
    duplicates: total - written.deletedLinks - written.inserted.length - written.completed.length,
    deletedLinks: written.deletedLinks,
    rebuiltLinks,
  };
}

/** Each message's token and its clicks, a click kept with the first message that holds it. */
function firstCopies(messages: ClickMessage[]): Block[] {
  const seen = new Set<string>();
  return messages.map((message) => {
    const token = messageToken(message);
    const rows: ClickRow[] = [];
    for (const row of message) {
      if (seen.has(row.click_id)) continue;
      seen.add(row.click_id);
      rows.push(row);
    }
    return { token, rows };
  });
}

/** Inserts the stored raw rows of interrupted blocks again under their own tokens; returns those rows. */
async function repeatBlocks(ch: KurzClickHouse, tokens: string[]): Promise<ClickRow[]> {
  const repeated: ClickRow[] = [];
  for (const token of tokens) {
    const rows = await rowsStoredBy(ch, token);
    for (const [month, rowsOfMonth] of byMonth(rows)) await insertRows(ch, rowsOfMonth, token, month);
    repeated.push(...rows);
  }
  return repeated;
}

/**
 * Inserts each block's clicks that are new, and those it stored before in an insert that was
 * interrupted; leaves out clicks of deleted links and clicks stored by another block or by a
 * completed insert of this one.
 */
async function insertBlocks(
  ch: KurzClickHouse,
  blocks: Block[],
  known: {
    deleted: Set<string>;
    stored: Map<string, Set<string>>;
    complete: Set<string>;
    checked: boolean;
  },
) {
  const { deleted, stored, complete, checked } = known;
  let deletedLinks = 0;
  const inserted: ClickRow[] = [];
  const completed: ClickRow[] = [];
  /** Tokens of the blocks inserted. */
  const tokens: string[] = [];
  /** Blocks none of whose clicks were stored before, kept for the check ("checked" only). */
  const fresh: Block[] = [];
  for (const { token, rows } of blocks) {
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
    if (checked && !repeat) fresh.push({ token, rows: toWrite });
    tokens.push(token);
  }
  return { inserted, completed, tokens, fresh, deletedLinks };
}

/**
 * After a fresh block was dropped as a copy somewhere: the raw part itself may be the one dropped, so
 * what `clicks` lacks goes in under a token of its own, new at each call: a kill in this insert's own
 * commit leaves a record of its token too, and a fixed one would drop the next delivery's insert of
 * the same rows for good. Only "checked" gets here, i.e. chDB's one consumer, so no two consumers race
 * on these rows. Returns every row of those blocks, to check.
 */
async function storeLacking(ch: KurzClickHouse, fresh: Block[]): Promise<ClickRow[]> {
  const storedNow = await storedClicks(
    ch,
    fresh.flatMap((m) => m.rows),
  );
  const repeated: ClickRow[] = [];
  for (const { token, rows } of fresh) {
    const lacking = rows.filter((r) => !storedNow.has(r.click_id));
    for (const [month, rowsOfMonth] of byMonth(lacking))
      await insertRows(ch, rowsOfMonth, token, `${month}:again:${randomUUID()}`);
    repeated.push(...rows);
  }
  return repeated;
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

/**
 * Rows as TabSeparated text: the cheapest text for ClickHouse to parse (about a third less than
 * JSONCompactEachRow for these rows) and cheap to write here, since most values need no escaping. Each
 * row records the message that stored it (`message_token`, the look-up's way to tell a redelivery from
 * another message's copy).
 */
async function insertRows(ch: KurzClickHouse, rows: ClickRow[], token: string, month: string): Promise<void> {
  const blockToken = `${token}:${month}`;
  if (!/^[A-Za-z0-9_:.-]+$/.test(blockToken)) throw new Error(`unexpected deduplication token ${blockToken}`);
  await ch.insertTabSeparated(
    {
      table: "clicks",
      columns: [...CLICK_COLUMNS, "message_token"],
      settings: {
        insert_deduplicate: 1,
        insert_deduplication_token: blockToken,
        deduplicate_blocks_in_dependent_materialized_views: 1,
        // No merge of each new part's rows at insert, in `clicks` or any rollup the views write: the
        // batch holds each click once (firstCopies), each view already groups its block by its table's
        // key, and link_stats' click rows are unique by click id, so that merge would find nothing to
        // fold and cost about a tenth of a click's CPU. Every read sums, merges or counts click ids.
        optimize_on_insert: 0,
      },
    },
    tabSeparatedBytes(rows, token),
  );
}

/** A plain click's line is about 270 bytes (three ids, the token's 50): most batches fit the first buffer; longer text grows it. */
const LINE_BYTES_GUESS = 320;

/**
 * CLICK_COLUMNS and the token, one line a row, as UTF-8 bytes in one buffer outside V8's heap. Each
 * line is written as soon as it is made, so its text is garbage before the young generation's next
 * collection; text joined over many rows would live through those collections, each one copying it.
 */
export function tabSeparatedBytes(rows: readonly ClickRow[], token: string): Buffer {
  let buf = Buffer.allocUnsafe(Math.max(1024, rows.length * LINE_BYTES_GUESS));
  let used = 0;
  for (const r of rows) {
    const line = tabSeparatedLine(r, token);
    // A UTF-16 code unit is at most 3 bytes of UTF-8.
    if (buf.length - used < line.length * 3) {
      const grown = Buffer.allocUnsafe(Math.max(buf.length * 2, used + line.length * 3));
      buf.copy(grown, 0, 0, used);
      buf = grown;
    }
    used += buf.write(line, used);
  }
  return buf.subarray(0, used);
}

/** One row as a line of text. Ids, times, hashes and flags never need escaping. */
function tabSeparatedLine(r: ClickRow, token: string): string {
  return (
    `${r.click_id}\t${r.link_id}\t${r.account_id}\t${tsv(r.short_code)}\t${r.ts}\t` +
    `${r.referrer === null ? "\\N" : tsv(r.referrer)}\t${tsv(r.country)}\t${tsv(r.city)}\t` +
    `${tsv(r.device_type)}\t${tsv(r.browser)}\t${tsv(r.os)}\t${r.is_bot}\t${r.visitor_hash}\t` +
    `${tsv(r.host)}\t${tsv(r.destination)}\t${token}\n`
  );
}

const TSV_SPECIAL = /[\\\t\n\r\0]/;
const TSV_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "\0": "\\0",
};

/** A string value as TabSeparated writes it: only a backslash and the control characters that end or break a value are escaped. */
function tsv(value: string): string {
  return TSV_SPECIAL.test(value) ? value.replace(/[\\\t\n\r\0]/g, (c) => TSV_ESCAPES[c]!) : value;
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

/**
 * Click id → tokens of the messages that stored it (one, unless two messages raced).
 *
 * A stored copy of a click has its link and its time (both set once, at the redirect), so the look-up
 * asks for those too. The times are what keep its cost flat as a link's day fills: ClickHouse orders
 * UUIDs by their random half, so within a link's day neither the sorting key nor the click_id min/max
 * index tells a batch's ids from the day's others, and the link and day alone select every click the
 * batch's links had that day. Each part records its rows' earliest and latest time, and ClickHouse
 * skips a part whose times miss every range of the clicks' times: a batch reads the few parts made
 * since the day's last big merge, not the day.
 */
export async function storedClicks(ch: KurzClickHouse, rows: ClickRow[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const size = lookupChunk(ch);
  // Sorted by link and time (click ids are UUIDv7), each of several chunks touches few links and a
  // narrow time range; one chunk (a whole batch, in embedded chDB) needs no order.
  const sorted =
    rows.length <= size
      ? rows
      : [...rows].sort((a, b) =>
          a.link_id === b.link_id ? (a.click_id < b.click_id ? -1 : 1) : a.link_id < b.link_id ? -1 : 1,
        );
  for (let i = 0; i < sorted.length; i += size) {
    const chunk = sorted.slice(i, i + size);
    const ranges = minuteRanges(chunk);
    const params: Record<string, unknown> = {
      links: [...new Set(chunk.map((r) => r.link_id))],
      ids: chunk.map((r) => r.click_id),
    };
    ranges.forEach(([from, to], k) => {
      params[`from${k}`] = from;
      params[`to${k}`] = to;
    });
    const inRanges = ranges
      .map((_, k) => `ts BETWEEN {from${k}:DateTime64(3, 'UTC')} AND {to${k}:DateTime64(3, 'UTC')}`)
      .join(" OR ");
    const found = await ch.query<{ id: string; token: string }>(
      `SELECT toString(click_id) AS id, message_token AS token FROM clicks
       WHERE link_id IN {links:Array(UUID)} AND (${inRanges}) AND click_id IN {ids:Array(UUID)}`,
      params,
    );
    for (const r of found) {
      const tokens = out.get(r.id);
      if (tokens) tokens.add(r.token);
      else out.set(r.id, new Set([r.token]));
    }
  }
  return out;
}

/** At most this many time ranges a look-up: each is two parameters and a test of every part. */
const MAX_TIME_RANGES = 16;

/**
 * The clicks' times as ranges of whole minutes (`YYYY-MM-DD HH:MM:00.000` to `…:59.999`), runs of
 * consecutive minutes joined, and the closest runs joined until at most MAX_TIME_RANGES are left: a
 * batch's clicks cover a minute or two, and a straggler from hours before adds a range of its own
 * rather than stretching one over the hours between. Bounds, not a list of the times: 20,000 times as a
 * parameter cost ClickHouse about as much to parse as the ids.
 */
export function minuteRanges(rows: readonly ClickRow[]): [string, string][] {
  const minutes = new Set<string>();
  // A batch's clicks come mostly in time order: a click of the same minute as the one before adds nothing.
  let minute = "";
  for (const r of rows) {
    if (minute !== "" && r.ts.startsWith(minute)) continue;
    minute = r.ts.slice(0, 16);
    minutes.add(minute);
  }
  const sorted = [...minutes].sort();
  const at = (minute: string) => Date.parse(`${minute.replace(" ", "T")}:00Z`);
  const runs: { from: string; to: string; fromMs: number; toMs: number }[] = [];
  for (const minute of sorted) {
    const ms = at(minute);
    const last = runs.at(-1);
    if (last !== undefined && ms - last.toMs <= 60_000) {
      last.to = minute;
      last.toMs = ms;
    } else runs.push({ from: minute, to: minute, fromMs: ms, toMs: ms });
  }
  while (runs.length > MAX_TIME_RANGES) {
    let closest = 1;
    for (let k = 2; k < runs.length; k++)
      if (runs[k]!.fromMs - runs[k - 1]!.toMs < runs[closest]!.fromMs - runs[closest - 1]!.toMs) closest = k;
    const [next] = runs.splice(closest, 1);
    runs[closest - 1]!.to = next!.to;
    runs[closest - 1]!.toMs = next!.toMs;
  }
  return runs.map((r) => [`${r.from}:00.000`, `${r.to}:59.999`]);
}

/**
 * The raw rows a block stored, to insert them again under its token: its raw part is committed whole
 * (the first of an insert's parts), so these are exactly the rows its views were, or were to be, fed.
 * Scans `message_token` of the whole table: only after an interrupted insert redelivered in another cut.
 */
async function rowsStoredBy(ch: KurzClickHouse, token: string): Promise<ClickRow[]> {
  const rows = await ch.query<Record<(typeof CLICK_COLUMNS)[number], string | number | null>>(
    `SELECT toString(click_id) AS click_id, toString(link_id) AS link_id, toString(account_id) AS account_id,
       short_code, toString(ts) AS ts, referrer, country, city, device_type, browser, os, is_bot,
       toString(visitor_hash) AS visitor_hash, host, destination
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
