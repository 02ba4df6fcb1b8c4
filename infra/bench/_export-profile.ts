// Where the analytics export's memory and time go: `node --expose-gc --import tsx
// infra/bench/_export-profile.ts [clicks] [dimension…]` (default 2,000,000 clicks over 2,000 links, the
// seeding of `./kurz bench import`; dimensions default to none and referrer). Embedded ClickHouse in this
// process. Prints, per export: rows, seconds, the peak RSS, V8 heap and array buffers above the level
// before it (sampled every 20 ms), and the slowest ClickHouse query of the export. Run under
// `flock /tmp/bench.lock` and note the load average. `MODES=streamed,buffered` also runs each export
// reading through @clickhouse/client over chdb/connection (each query's result materialised before its
// first row: the way before chdb-streams.ts), after the streamed one, to compare within one run.
import { loadavg } from "node:os";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import type { ExportDimension } from "@kurz/contracts";
import { exportAnalytics } from "../../services/analytics/src/exports/analytics-export.ts";
import { seedAnalytics } from "./_analytics-seed.ts";
import { rssOf } from "./_rss.ts";

const MB = 1024 * 1024;
const clicks = Number(process.argv[2] ?? 2_000_000);
const modes = (process.env.MODES ?? "streamed").split(",") as ("streamed" | "buffered")[];
const dims = (
  process.argv.slice(3).length > 0 ? process.argv.slice(3) : ["none", "referrer"]
) as ExportDimension[];

const ch = await createClickHouse({ path: ":memory:", database: "export_profile" });
try {
  await migrate(ch);
  const t0 = performance.now();
  const seeded = await seedAnalytics(ch, { linkClicks: 1_000, accountClicks: clicks, accountLinks: 2_000 });
  console.error(`seeded ${clicks} clicks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  const streamed = ch.queryRows;
  const buffered = async function* (sql: string, params?: Record<string, unknown>) {
    const rs = await ch.raw.query({ query: sql, format: "JSONEachRow", query_params: params });
    for await (const rows of rs.stream()) for (const row of rows) yield row.json();
  };
  for (const [mode, dimension] of modes.flatMap((m) => dims.map((d) => [m, d] as const))) {
    Object.assign(ch, { queryRows: mode === "buffered" ? buffered : streamed });
    global.gc?.();
    const before = { ...process.memoryUsage(), rss: rssOf(process.pid) ?? 0 };
    const peak = { rss: before.rss, heap: before.heapUsed, ab: before.arrayBuffers };
    const sample = () => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, rssOf(process.pid) ?? 0);
      peak.heap = Math.max(peak.heap, m.heapUsed);
      peak.ab = Math.max(peak.ab, m.arrayBuffers);
    };
    const timer = setInterval(sample, 20);
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
    sample();
    clearInterval(timer);
    console.log(
      JSON.stringify({
        dimension,
        read: mode,
        clicks,
        rows: lines - 1,
        mb: +(bytes / MB).toFixed(1),
        seconds: +((performance.now() - start) / 1000).toFixed(1),
        longestWaitForARowMs: Math.round(gap),
        rssBeforeMb: Math.round(before.rss / MB),
        peakRssAboveMb: Math.round((peak.rss - before.rss) / MB),
        peakHeapAboveMb: Math.round((peak.heap - before.heapUsed) / MB),
        peakArrayBuffersAboveMb: Math.round((peak.ab - before.arrayBuffers) / MB),
        load: loadavg().map((l) => +l.toFixed(2)),
      }),
    );
  }
} finally {
  await ch.close();
}
