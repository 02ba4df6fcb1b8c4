import type { ServerResponse } from "node:http";
import type { ClickMetrics } from "./click-publisher.ts";

// The names prom-client's default metrics use, so existing dashboards pick them up.
function processMetrics(): string[] {
  const mem = process.memoryUsage();
  return [
    "# HELP process_resident_memory_bytes Resident memory size in bytes.",
    "# TYPE process_resident_memory_bytes gauge",
    `process_resident_memory_bytes ${mem.rss}`,
    "# HELP nodejs_heap_size_total_bytes Process heap size from Node.js in bytes.",
    "# TYPE nodejs_heap_size_total_bytes gauge",
    `nodejs_heap_size_total_bytes ${mem.heapTotal}`,
    "# HELP nodejs_heap_size_used_bytes Process heap size used from Node.js in bytes.",
    "# TYPE nodejs_heap_size_used_bytes gauge",
    `nodejs_heap_size_used_bytes ${mem.heapUsed}`,
    "# HELP nodejs_external_memory_bytes Node.js external memory size in bytes.",
    "# TYPE nodejs_external_memory_bytes gauge",
    `nodejs_external_memory_bytes ${mem.external}`,
  ];
}

/** Prometheus text exposition of the click pipeline; `clicks_dropped_total` must stay 0. */
export function sendMetrics(res: ServerResponse, m: ClickMetrics, head: boolean): void {
  const body = [
    "# HELP clicks_published_total Click events accepted by the bus.",
    "# TYPE clicks_published_total counter",
    `clicks_published_total ${m.published}`,
    "# HELP clicks_dropped_total Click events lost (spool full or unwritable). Should stay 0.",
    "# TYPE clicks_dropped_total counter",
    `clicks_dropped_total ${m.dropped}`,
    "# HELP clicks_buffered Click events waiting in memory for the bus.",
    "# TYPE clicks_buffered gauge",
    `clicks_buffered ${m.buffered}`,
    "# HELP clicks_spooled Click events waiting in the disk spool for the bus.",
    "# TYPE clicks_spooled gauge",
    `clicks_spooled ${m.spooled}`,
    ...processMetrics(),
    "",
  ].join("\n");
  res.writeHead(200, {
    "content-type": "text/plain; version=0.0.4; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(head ? undefined : body);
}
