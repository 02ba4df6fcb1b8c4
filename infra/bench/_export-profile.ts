// Where the analytics export's memory and time go: `node --expose-gc --import tsx
// infra/bench/_export-profile.ts [clicks] [dimension…]` (default 2,000,000 clicks over 2,000 links, the
// seeding of `./kurz bench import`; dimensions default to none and referrer). Embedded ClickHouse in this
// process. Prints, per export: rows, seconds, the peak RSS, V8 heap and array buffers above the level
// before it (sampled every 20 ms), and the slowest ClickHouse query of the export. Run under
// `flock /tmp/bench.lock` and note the load average.
import { loadavg } from "node:os";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import type { ExportDimension } from "@kurz/contracts";
import { exportAnalytics } from "../../services/analytics/src/exports/analytics-export.ts";
import { seedAnalytics } from "./_analytics-seed.ts";
import { rssOf } from "./_rss.ts";

const MB = 1024 * 1024;
const clicks = Number(process.argv[2] ?? 2_000_000);
const dims = (
  process.argv.slice(3).length > 0 ? process.argv.slice(3) : ["none", "referrer"]
) as ExportDimension[];

const ch = await createClickHouse({ path: ":memory:", database: "export_profile" });
try {
  await migrate(ch);
  const t0 = performance.now();
  const seeded = await seedAnalytics(ch, { linkClicks: 1_000, accountClicks: clicks, accountLinks: 2_000 });
  console.error(`seeded ${clicks} clicks in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  for (const dimension of dims) {
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
