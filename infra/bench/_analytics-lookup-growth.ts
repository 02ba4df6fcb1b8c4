// What the exactly-once look-up of stored click ids costs as a link's day fills: `node --import tsx
// infra/bench/_analytics-lookup-growth.ts ROOT [--links 300] [--stored 0,100000,1000000] [--batches 6]
// [--batch 20000]` imports the consumer's code from the checkout at ROOT. For each count N of
// `--stored`, in a chDB directory of its own, it stores N clicks of today (the last hours before now,
// over the `--links` links, in SQL like _analytics-seed.ts), lets the merges settle, then ingests
// `--batches` batches of `--batch` new clicks to the same links as the consumer does (writeClicks,
// one block a batch, from messages of 200 clicks). Before each batch it runs the look-up alone on that batch's clicks (the
// checkout's storedClicks, or main's query when ROOT does not export it), with the parts, marks
// (granules), rows and bytes it selected (system.events, read around it; the few rows of that read
// itself are in the count). Prints one JSON line per N: medians of process
// CPU (every thread, chDB's included) and wall time per batch, and of the look-up alone.
// Run under `flock /tmp/bench.lock`; the time is Date.now()-relative (a run across midnight UTC splits
// the stored day from the new clicks' one).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { ingestOf } from "./_ingest-checkout.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    links: { type: "string", default: "300" },
    stored: { type: "string", default: "0,100000,1000000" },
    batches: { type: "string", default: "6" },
    batch: { type: "string", default: "20000" },
    settle: { type: "string", default: "10" },
  },
});
const root = positionals[0]!;
const linkCount = Number(values.links);
const batches = Number(values.batches);
const batchSize = Number(values.batch);
const settle = Number(values.settle);

/** The consumer's parts, from the checkout measured. */
const k = await ingestOf(root);

type Row = { click_id: string; link_id: string; ts: string };
type CH = {
  query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]>;
  command(sql: string, params?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
};

/** main's look-up, for a checkout that does not export storedClicks. */
async function mainLookup(ch: CH, rows: Row[]) {
  const sorted = [...rows].sort((a, b) =>
    a.link_id === b.link_id ? (a.click_id < b.click_id ? -1 : 1) : a.link_id < b.link_id ? -1 : 1,
  );
  return ch.query(
    `SELECT toString(click_id) AS id, message_token AS token FROM clicks
     WHERE link_id IN {links:Array(UUID)} AND toDate(ts) IN {days:Array(Date)} AND click_id IN {ids:Array(UUID)}`,
    {
      links: [...new Set(sorted.map((r) => r.link_id))],
      days: [...new Set(sorted.map((r) => r.ts.slice(0, 10)))],
      ids: sorted.map((r) => r.click_id),
    },
  );
}
const lookup: (ch: CH, rows: Row[]) => Promise<unknown> = k.insert.storedClicks ?? mainLookup;

// Ids are UUIDv7 of now whatever the row's time, with a random second half as the redirect's have:
// ClickHouse orders UUIDs by that half, and generateUUIDv7's counter there would cluster the stored
// ids apart from the new ones (which a min/max index would then skip, unlike in production).
const SELECT_TODAY = `
  SELECT
    toUUID(concat(substring(toString(generateUUIDv7(number)), 1, 19), substring(toString(generateUUIDv4(number)), 20, 17))) AS click_id,
    {links:Array(UUID)}[(number % length({links:Array(UUID)})) + 1] AS link_id,
    {account:UUID} AS account_id,
    'bench' AS short_code,
    now64(3, 'UTC') - toIntervalMillisecond(intHash64(number) % {span:UInt64}) AS ts,
    if(number % 3 = 0, NULL, concat('https://ref', toString(intHash32(number) % 50), '.example/')) AS referrer,
    ['US','GB','DE','FR','JP'][(intHash32(number + 1) % 5) + 1] AS country,
    concat('City ', toString(intHash32(number + 2) % 300)) AS city,
    ['desktop','mobile','tablet'][(intHash32(number + 3) % 3) + 1] AS device_type,
    ['Chrome','Mobile Safari','Firefox'][(intHash32(number + 4) % 3) + 1] AS browser,
    ['Windows','iOS','Android'][(intHash32(number + 5) % 3) + 1] AS os,
    if(number % 25 = 0, 1, 0) AS is_bot,
    intHash64(number % 400000) AS visitor_hash,
    'kurz.test' AS host,
    concat('clicks:seed', toString(intDiv(number, 200))) AS message_token
  FROM numbers({start:UInt64}, {count:UInt64})`;
const COLUMNS =
  "click_id, link_id, account_id, short_code, ts, referrer, country, city, device_type, browser, os, is_bot, visitor_hash, host, message_token";

const account: string = k.syntheticLinks()[0]!.account;
const links = k
  .syntheticLinks()
  .slice(0, linkCount)
  .map((l: { id: string }) => ({ id: l.id, account }));
const geo = new k.GeoIp(k.loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new k.VisitorHasher("lookup");

/** One batch, one block (a Redis batch): messages of 200 clicks, decoded and enriched as the consumer does. */
function batchRows(): unknown[] {
  const messages = [];
  for (let i = 0; i < batchSize; i += 200) {
    const clicks = [];
    for (let j = 0; j < 200; j++) clicks.push(k.syntheticClick(links, i + j));
    const decoded = k.decodeClickBatch(JSON.parse(JSON.stringify(k.encodeClickBatch(clicks))))!;
    for (const c of decoded) messages.push(k.toClickRow(c, { geo, visitors }));
  }
  return messages;
}

/** chDB has no query_log; its process-wide counters, read before and after, give the look-up's reads. */
async function events(ch: CH): Promise<Map<string, number>> {
  const rows = await ch.query<{ event: string; value: number }>(
    "SELECT event, value FROM system.events WHERE event IN ('SelectedParts', 'SelectedMarks', 'SelectedRows', 'SelectedBytes')",
  );
  return new Map(rows.map((r) => [r.event, Number(r.value)]));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cpuMs = (a: NodeJS.CpuUsage) => {
  const b = process.cpuUsage();
  return (b.user + b.system - a.user - a.system) / 1000;
};

for (const stored of values.stored.split(",").map(Number)) {
  const dir = mkdtempSync(join(tmpdir(), "lookup-growth-"));
  const ch: CH = await k.createClickHouse({ path: dir, database: "lg" });
  await k.migrate(ch);
  const midnight = new Date();
  midnight.setUTCHours(0, 0, 0, 0);
  const span = Math.max(1, Date.now() - midnight.getTime() - 60_000);
  const seedStart = performance.now();
  for (let start = 0; start < stored; start += 1_000_000)
    await ch.command(`INSERT INTO clicks (${COLUMNS}) ${SELECT_TODAY}`, {
      links: links.map((l: { id: string }) => l.id),
      account,
      span,
      start,
      count: Math.min(1_000_000, stored - start),
    });
  const seedS = (performance.now() - seedStart) / 1000;
  await sleep(settle * 1000);

  const runs: Record<string, number>[] = [];
  for (let b = 0; b < batches; b++) {
    const block = batchRows();
    const rows = block as Row[];
    const before = await events(ch);
    let c = process.cpuUsage();
    let t = performance.now();
    await lookup(ch, rows);
    const lookupCpu = cpuMs(c);
    const lookupWall = performance.now() - t;
    const after = await events(ch);
    const delta = (e: string) => (after.get(e) ?? 0) - (before.get(e) ?? 0);
    c = process.cpuUsage();
    t = performance.now();
    await k.insert.writeClicks(ch, [block]);
    runs.push({
      batch_cpu_ms: cpuMs(c),
      batch_wall_ms: performance.now() - t,
      lookup_cpu_ms: lookupCpu,
      lookup_wall_ms: lookupWall,
      lookup_parts: delta("SelectedParts"),
      lookup_marks: delta("SelectedMarks"),
      lookup_rows: delta("SelectedRows"),
      lookup_mb: delta("SelectedBytes") / 1e6,
    });
  }
  const [count] = await ch.query<{ n: number }>("SELECT count() AS n FROM clicks");
  const out: Record<string, unknown> = {
    root: root.split("/").pop(),
    links: linkCount,
    stored,
    seed_s: +seedS.toFixed(1),
  };
  for (const k of Object.keys(runs[0]!)) out[k] = +median(runs.map((r) => r[k]!)).toFixed(1);
  out.batch_cpu_all = runs.map((r) => Math.round(r.batch_cpu_ms!));
  out.lookup_cpu_all = runs.map((r) => Math.round(r.lookup_cpu_ms!));
  out.rows = Number(count?.n);
  console.log(JSON.stringify(out));
  await ch.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
