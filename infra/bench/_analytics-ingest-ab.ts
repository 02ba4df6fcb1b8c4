// CPU per click of analytics' consumer path, A/B across checkouts: `node --import tsx
// infra/bench/_analytics-ingest-ab.ts ROOT [clicks] [settle-seconds]` imports the consumer's code from
// the checkout at ROOT (a worktree of the base beside this one, say), ingests `clicks` (default 200,000)
// of the synthetic traffic over 300 links as the consumer does (JSON.parse, decodeClickBatch,
// toClickRow, writeClicks; handler batches of 100 v2 messages of 200 clicks, one block each) into a
// chDB directory of its own, then idles `settle` seconds (default 10) for the merges that follow.
// Prints one JSON line: process CPU (every thread, chDB's included) per click over the ingest, over
// decoding and enrichment alone, and over the settle. AB_DROP=view,view drops those materialized views
// after migrating (what a view costs). Settings without a second checkout: AB_INSERT_SETTINGS (JSON,
// `{"max_threads":1}`) adds to the click insert's settings, AB_ENGINE_ARGS (space-separated, as
// chdbEngineArgs writes them: `--background_pool_size=4`) starts the engine with those server settings,
// AB_TABLE_SETTINGS (`min_bytes_for_wide_part=0,...`) is set after migrating on every MergeTree table, or
// on those AB_TABLES names (`clicks,link_stats`).
// The line also splits the CPU of ingest and settle by thread name (chDB's `Unknown` insert threads,
// `MergeMutate`, the main thread; threads that ended meanwhile under `exited`). Alternate the checkouts
// or settings, run under `flock /tmp/bench.lock`.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ingestOf } from "./_ingest-checkout.ts";

const root = process.argv[2]!;
const total = Number(process.argv[3] ?? 200_000);
const settle = Number(process.argv[4] ?? 10);
/** The consumer's parts, from the checkout measured. */
const k = await ingestOf(root);
const links = k.syntheticLinks().slice(0, 300);
const messages: string[] = [];
for (let i = 0; i < total; i += 200) {
  const clicks = [];
  for (let j = 0; j < 200; j++) clicks.push(k.syntheticClick(links, i + j));
  messages.push(JSON.stringify(k.encodeClickBatch(clicks)));
}
const geo = new k.GeoIp(k.loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new k.VisitorHasher("ab");
const dir = mkdtempSync(join(tmpdir(), "clickcost-ab-"));
const engineArgs = (process.env.AB_ENGINE_ARGS ?? "").split(" ").filter(Boolean);
// As createClickHouse's memory bounds do: the first session on the directory starts the engine.
const anchor =
  engineArgs.length > 0
    ? new (await import(`${root}/packages/clickhouse/node_modules/chdb/index.js`)).Session(dir, {
        connectionArgs: engineArgs,
      })
    : undefined;
const ch = await k.createClickHouse({ path: dir, database: "ab" });
await k.migrate(ch);
for (const v of (process.env.AB_DROP ?? "").split(",").filter(Boolean)) await ch.command(`DROP VIEW ${v}`);
const tableSettings = process.env.AB_TABLE_SETTINGS ?? "";
if (tableSettings !== "")
  for (const { name } of (await ch.query(
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'",
  )) as { name: string }[])
    if (!process.env.AB_TABLES || process.env.AB_TABLES.split(",").includes(name))
      await ch.command(`ALTER TABLE ${name} MODIFY SETTING ${tableSettings}`);
const insertSettings = JSON.parse(process.env.AB_INSERT_SETTINGS ?? "{}") as Record<string, string | number>;
const insertTabSeparated = ch.insertTabSeparated.bind(ch);
ch.insertTabSeparated = (target: { settings: Record<string, string | number> }, body: Uint8Array) =>
  insertTabSeparated({ ...target, settings: { ...target.settings, ...insertSettings } }, body);
/** CPU ticks of each thread now, by thread id, with its name. */
const threads = () => {
  const out = new Map<string, { name: string; ticks: number }>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const name =
        tid === String(process.pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      out.set(tid, { name, ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
};
/** µs per click by thread name between two readings; `exited` is the process's CPU no live thread holds. */
const byThread = (a: ReturnType<typeof threads>, b: ReturnType<typeof threads>, processUs: number) => {
  const out: Record<string, number> = {};
  let sum = 0;
  for (const [tid, t] of b) {
    const us = ((t.ticks - (a.get(tid)?.ticks ?? 0)) * 10_000) / total;
    out[t.name] = (out[t.name] ?? 0) + us;
    sum += us;
  }
  out.exited = processUs - sum;
  return Object.fromEntries(
    Object.entries(out)
      .filter(([, us]) => Math.abs(us) >= 0.05)
      .map(([n, us]) => [n, +us.toFixed(1)]),
  );
};
await sleep(2000);
let jsCpu = 0;
const th0 = threads();
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < messages.length; i += 100) {
  const a = process.cpuUsage();
  const rows = [];
  for (const m of messages.slice(i, i + 100))
    for (const c of k.decodeClickBatch(JSON.parse(m))!) rows.push(k.toClickRow(c, { geo, visitors }));
  const b = process.cpuUsage();
  jsCpu += b.user + b.system - a.user - a.system;
  await k.insert.writeClicks(ch, [rows]);
}
const t1 = performance.now();
const c1 = process.cpuUsage();
const th1 = threads();
await sleep(settle * 1000);
const c2 = process.cpuUsage();
const th2 = threads();
const us = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user + b.system - a.user - a.system) / total;
const [{ n }] = (await ch.query("SELECT count() AS n FROM clicks")) as [{ n: number }];
console.log(
  JSON.stringify({
    root: root.split("/").pop(),
    drop: process.env.AB_DROP ?? "",
    insert_settings: process.env.AB_INSERT_SETTINGS ?? "",
    engine_args: process.env.AB_ENGINE_ARGS ?? "",
    table_settings: tableSettings,
    ingest_us: +us(c0, c1).toFixed(1),
    decode_enrich_us: +(jsCpu / total).toFixed(1),
    settle_us: +us(c1, c2).toFixed(1),
    all_us: +us(c0, c2).toFixed(1),
    clicks_per_s: Math.round(total / ((t1 - t0) / 1000)),
    stored: n,
    ingest_by_thread: byThread(th0, th1, us(c0, c1)),
    settle_by_thread: byThread(th1, th2, us(c1, c2)),
  }),
);
await ch.close();
anchor?.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
