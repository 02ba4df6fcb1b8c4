// Where the analytics export's memory and time go: `node --expose-gc --import tsx
// infra/bench/_export-profile.ts [clicks[,clicks…]] [dimension…]` (default 2,000,000 clicks over 2,000
// links, the seeding of `./kurz bench import`; several sizes, e.g. `2000000,6000000,10000000`, grow one
// account to each in turn and profile every export at each; dimensions default to none and referrer). Embedded ClickHouse in this
// process. Prints, per export: rows, seconds, the peak RSS, V8 heap and array buffers above the level
// before it (sampled every 20 ms), and the slowest ClickHouse query of the export. Run under
// `flock /tmp/bench.lock` and note the load average. `MODES=streamed,buffered` also runs each export
// reading through @clickhouse/client over chdb/connection (each query's result materialised before its
// first row: the way before chdb-streams.ts), after the streamed one, to compare within one run.
// Also prints every 2 s of each export the RSS above the level before (`rssAboveEvery2sMb`) and the V8
// heap above it right after a forced GC (`liveHeapAboveEvery2sMb`: what the export keeps alive).
// `EXPORT_FROM=<path>` also profiles the exportAnalytics of another file (an older copy of
// analytics-export.ts) at each size, old and new alternating in order from one size to the next.
import { loadavg } from "node:os";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import type { ExportDimension } from "@kurz/contracts";
import { exportAnalytics as current } from "../../services/analytics/src/exports/analytics-export.ts";
import { insertClicks, seedAnalytics } from "./_analytics-seed.ts";
import { watchOwnMemory } from "./_rss.ts";

const MB = 1024 * 1024;
// `2000000,6000000,10000000` grows one account to each size in turn and profiles every export at each.
const sizes = (process.argv[2] ?? "2000000").split(",").map(Number);
const modes = (process.env.MODES ?? "streamed").split(",") as ("streamed" | "buffered")[];
const dims = (
  process.argv.slice(3).length > 0 ? process.argv.slice(3) : ["none", "referrer"]
) as ExportDimension[];

const versions: [string, typeof current][] = [["new", current]];
if (process.env.EXPORT_FROM)
  versions.push(["old", (await import(process.env.EXPORT_FROM)).exportAnalytics as typeof current]);

const ch = await createClickHouse({ path: ":memory:", database: "export_profile" });
try {
  await migrate(ch);
  const seeded = await seedAnalytics(ch, { linkClicks: 1_000, accountClicks: 0, accountLinks: 2_000 });
  let have = 0;
  const streamed = ch.queryRows;
  for (const [step, clicks] of sizes.entries()) {
    const t0 = performance.now();
    await ch.command("SYSTEM START MERGES");
    await insertClicks(ch, seeded.account.account_id, seeded.account.link_ids, clicks, have);
    have = clicks;
    console.error(`seeded ${clicks} clicks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    // Background merges of the parts just inserted would move RSS by hundreds of MB while an export
    // runs (seen at 10M clicks: the "RSS above before" series fell to -151 MB): stopped while
    // measuring, so the figures are the export's. The export then reads unmerged parts, its worst case.
    await ch.command("SYSTEM STOP MERGES");
    await new Promise((r) => setTimeout(r, 3_000));
    const buffered = async function* (sql: string, params?: Record<string, unknown>) {
      const rs = await ch.raw.query({ query: sql, format: "JSONEachRow", query_params: params });
      for await (const rows of rs.stream()) for (const row of rows) yield row.json();
    };
    // OLD_AT=<clicks,…> runs the other version at those sizes only (each old run is as long as a new one).
    const here =
      process.env.OLD_AT?.split(",").map(Number).includes(clicks) === false ? versions.slice(0, 1) : versions;
    const inOrder = step % 2 === 0 ? here : [...here].reverse();
    const runs = modes.flatMap((m) => dims.flatMap((d) => inOrder.map((v) => [m, d, v] as const)));
    for (const [mode, dimension, [version, exportAnalytics]] of runs) {
      Object.assign(ch, { queryRows: mode === "buffered" ? buffered : streamed });
      const memory = watchOwnMemory(2_000);
      const start = performance.now();
      let lines = 0;
      let bytes = 0;
      let gap = 0;
      let last = performance.now();
      for await (const chunk of exportAnalytics(ch, seeded.account.account_id, { dimension })) {
        const now = performance.now();
        gap = Math.max(gap, now - last);
        last = now;
        lines++;
        bytes += Buffer.byteLength(chunk as string);
      }
      const m = memory.stop();
      console.log(
        JSON.stringify({
          dimension,
          version,
          read: mode,
          clicks,
          rows: lines - 1,
          mb: +(bytes / MB).toFixed(1),
          seconds: +((performance.now() - start) / 1000).toFixed(1),
          longestWaitForARowMs: Math.round(gap),
          rssBeforeMb: m.rssBeforeMb,
          peakRssAboveMb: m.peakRssAboveMb,
          peakHeapAboveMb: m.peakHeapAboveMb,
          peakArrayBuffersAboveMb: m.peakArrayBuffersAboveMb,
          rssAboveEvery2sMb: m.rssAbove,
          liveHeapAboveEvery2sMb: m.liveHeapAbove,
          load: loadavg().map((l) => +l.toFixed(2)),
        }),
      );
    }
  }
} finally {
  await ch.close();
}
