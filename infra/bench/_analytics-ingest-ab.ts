// CPU per click of analytics' consumer path, A/B across checkouts: `node --import tsx
// infra/bench/_analytics-ingest-ab.ts ROOT [clicks] [settle-seconds]` imports the consumer's code from
// the checkout at ROOT (a worktree of the base beside this one, say), ingests `clicks` (default 200,000)
// of the synthetic traffic over 300 links as the consumer does (JSON.parse, decodeClickBatch,
// toClickRow, writeClicks; handler batches of 100 v2 messages of 200 clicks, one block each) into a
// chDB directory of its own, then idles `settle` seconds (default 10) for the merges that follow.
// Prints one JSON line: process CPU (every thread, chDB's included) per click over the ingest, over
// decoding and enrichment alone, and over the settle. AB_DROP=view,view drops those materialized views
// after migrating (what a view costs). Alternate the checkouts, run under `flock /tmp/bench.lock`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const root = process.argv[2]!;
const total = Number(process.argv[3] ?? 200_000);
const settle = Number(process.argv[4] ?? 10);
const { createClickHouse, migrate } = await import(`${root}/packages/clickhouse/src/index.ts`);
const { decodeClickBatch, encodeClickBatch } = await import(`${root}/packages/contracts/src/index.ts`);
const { loadAnalyticsConfig } = await import(`${root}/services/analytics/src/config.ts`);
const { GeoIp } = await import(`${root}/services/analytics/src/enrich/geoip.ts`);
const { VisitorHasher } = await import(`${root}/services/analytics/src/enrich/visitor-hash.ts`);
const { toClickRow } = await import(`${root}/services/analytics/src/ingest/click-rows.ts`);
const { writeClicks } = await import(`${root}/services/analytics/src/ingest/exactly-once-insert.ts`);
const { syntheticClick, syntheticLinks } = await import(`${root}/infra/bench/_synthetic-clicks.ts`);
const links = syntheticLinks().slice(0, 300);
const messages: string[] = [];
for (let i = 0; i < total; i += 200) {
  const clicks = [];
  for (let j = 0; j < 200; j++) clicks.push(syntheticClick(links, i + j));
  messages.push(JSON.stringify(encodeClickBatch(clicks)));
}
const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new VisitorHasher("ab");
const dir = mkdtempSync(join(tmpdir(), "clickcost-ab-"));
const ch = await createClickHouse({ path: dir, database: "ab" });
await migrate(ch);
for (const v of (process.env.AB_DROP ?? "").split(",").filter(Boolean)) await ch.command(`DROP VIEW ${v}`);
await sleep(2000);
let jsCpu = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < messages.length; i += 100) {
  const a = process.cpuUsage();
  const rows = [];
  for (const m of messages.slice(i, i + 100))
    for (const c of decodeClickBatch(JSON.parse(m))!) rows.push(toClickRow(c, { geo, visitors }));
  const b = process.cpuUsage();
  jsCpu += b.user + b.system - a.user - a.system;
  await writeClicks(ch, [rows]);
}
const t1 = performance.now();
const c1 = process.cpuUsage();
await sleep(settle * 1000);
const c2 = process.cpuUsage();
const us = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user + b.system - a.user - a.system) / total;
const [{ n }] = (await ch.query("SELECT count() AS n FROM clicks")) as [{ n: number }];
console.log(
  JSON.stringify({
    root: root.split("/").pop(),
    drop: process.env.AB_DROP ?? "",
    ingest_us: +us(c0, c1).toFixed(1),
    decode_enrich_us: +(jsCpu / total).toFixed(1),
    settle_us: +us(c1, c2).toFixed(1),
    all_us: +us(c0, c2).toFixed(1),
    clicks_per_s: Math.round(total / ((t1 - t0) / 1000)),
    stored: n,
  }),
);
await ch.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
