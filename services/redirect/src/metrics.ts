// The redirect's Prometheus exposition, written by hand rather than with prom-client: the hot path only
// increments plain numbers (the publisher's counts, the caches' hits and misses), and this text is
// built from them when Prometheus scrapes, so metrics cost a redirect nothing more.
import type { Dirent } from "node:fs";
import { readdir, stat, statfs } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import type { ClickMetrics } from "./click-publisher.ts";

/** Everything a scrape reports, read when it comes. */
export interface RedirectMetrics extends ClickMetrics {
  spoolBytes: number;
  spoolMaxBytes: number;
  /** The click journal's segments on disk; 0 without a journal. */
  journalBytes: number;
  /** The filesystem holding SPOOL_DIR (spool and journal); null when it cannot be read. */
  spoolDisk: { free: number; size: number } | null;
  /** Per cache (link, domain, rotator, overlay): lookups answered from memory and not. */
  caches: { cache: string; hits: number; misses: number }[];
  /** Requests answered 429 because a budget was spent, by which. */
  refusals: { reason: string; count: number }[];
}

/** Free and total bytes of the filesystem holding `dir`, or null. */
export async function diskOf(dir: string): Promise<{ free: number; size: number } | null> {
  const s = await statfs(dir).catch(() => null);
  return s ? { free: s.bavail * s.bsize, size: s.blocks * s.bsize } : null;
}

/** Bytes of the files directly in `dir` (the journal's segments); 0 when it does not exist. */
export async function directoryBytes(dir: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  const sizes = await Promise.all(
    entries
      .filter((e) => e.isFile())
      .map((e) =>
        stat(join(dir, e.name)).then(
          (s) => s.size,
          () => 0,
        ),
      ),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

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
export function sendMetrics(res: ServerResponse, m: RedirectMetrics, head: boolean): void {
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
    "# HELP click_spool_bytes Bytes in the click spool (clicks waiting on disk for the bus).",
    "# TYPE click_spool_bytes gauge",
    `click_spool_bytes ${m.spoolBytes}`,
    "# HELP click_spool_max_bytes The spool's bound (SPOOL_MAX_BYTES); past it clicks are dropped.",
    "# TYPE click_spool_max_bytes gauge",
    `click_spool_max_bytes ${m.spoolMaxBytes}`,
    "# HELP click_journal_bytes Bytes of click journal segments on disk (clicks not yet safe elsewhere).",
    "# TYPE click_journal_bytes gauge",
    `click_journal_bytes ${m.journalBytes}`,
    ...(m.spoolDisk
      ? [
          "# HELP disk_free_bytes Bytes available to this service on the filesystem holding its data, by volume.",
          "# TYPE disk_free_bytes gauge",
          `disk_free_bytes{volume="spool"} ${m.spoolDisk.free}`,
          "# HELP disk_size_bytes Size of the filesystem holding this service's data, by volume.",
          "# TYPE disk_size_bytes gauge",
          `disk_size_bytes{volume="spool"} ${m.spoolDisk.size}`,
        ]
      : []),
    "# HELP redirect_refusals_total Requests answered 429 because a budget was spent: unknown-code lookups (miss_budget), password attempts.",
    "# TYPE redirect_refusals_total counter",
    ...m.refusals.map((r) => `redirect_refusals_total{reason="${r.reason}"} ${r.count}`),
    "# HELP redirect_cache_lookups_total In-memory record lookups, by cache and result (hit or miss).",
    "# TYPE redirect_cache_lookups_total counter",
    ...m.caches.flatMap((c) => [
      `redirect_cache_lookups_total{cache="${c.cache}",result="hit"} ${c.hits}`,
      `redirect_cache_lookups_total{cache="${c.cache}",result="miss"} ${c.misses}`,
    ]),
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
