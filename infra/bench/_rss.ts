// Resident memory of the stack's service processes for `./kurz bench api`: one reading when the stack
// is idle after start, then the peak of readings every 250 ms while the load runs. Read from
// /proc/<pid>/status (VmRSS), Linux only; elsewhere the section says so.
import { readFileSync } from "node:fs";

export interface RssReport {
  /** Markdown lines: a table of idle and peak RSS per process, and the total. */
  markdown(): string[];
  /** Stops sampling (idempotent). */
  stop(): void;
}

const SAMPLE_MS = 250;

/** RSS in bytes, or undefined when the process is gone or /proc is not there. */
export function rssOf(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}

/** Takes the idle reading now and samples the peak until stop(). */
export function sampleRss(pids: Record<string, number>): RssReport {
  const names = Object.keys(pids);
  const idle = Object.fromEntries(names.map((n) => [n, rssOf(pids[n]!)]));
  const peak: Record<string, number> = {};
  const sample = () => {
    for (const n of names) {
      const rss = rssOf(pids[n]!);
      if (rss !== undefined) peak[n] = Math.max(peak[n] ?? 0, rss);
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      sample();
    },
    markdown() {
      if (names.every((n) => idle[n] === undefined))
        return ["(RSS not measured: /proc/<pid>/status is not available on this system.)"];
      const mb = (b: number | undefined) => (b === undefined ? "–" : String(Math.round(b / 2 ** 20)));
      const sum = (xs: (number | undefined)[]) => xs.reduce<number>((a, b) => a + (b ?? 0), 0);
      return [
        "| process | RSS idle after start (MB) | peak RSS during the run (MB) |",
        "|---|---|---|",
        ...names.map((n) => `| ${n} | ${mb(idle[n])} | ${mb(peak[n])} |`),
        `| **total** | ${mb(sum(names.map((n) => idle[n])))} | ${mb(sum(names.map((n) => peak[n])))} |`,
      ];
    },
  };
}

/**
 * This process's memory while one export runs (the export profiles): the level after a forced GC,
 * the peaks of RSS, V8 heap and array buffers above it (sampled every 20 ms), and every `everyMs` the
 * RSS above it and the heap right after a forced GC (what the export keeps alive, garbage aside).
 * Run node with --expose-gc for the forced GCs.
 */
export function watchOwnMemory(everyMs: number) {
  const MB = 1024 * 1024;
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
  const rssAbove: number[] = [];
  const liveHeapAbove: number[] = [];
  const seriesTimer = setInterval(() => {
    rssAbove.push(Math.round(((rssOf(process.pid) ?? 0) - before.rss) / MB));
    global.gc?.();
    liveHeapAbove.push(Math.round((process.memoryUsage().heapUsed - before.heapUsed) / MB));
  }, everyMs);
  return {
    /** Stops sampling; the figures in MB. */
    stop() {
      sample();
      clearInterval(timer);
      clearInterval(seriesTimer);
      return {
        rssBeforeMb: Math.round(before.rss / MB),
        peakRssAboveMb: Math.round((peak.rss - before.rss) / MB),
        peakHeapAboveMb: Math.round((peak.heap - before.heapUsed) / MB),
        peakArrayBuffersAboveMb: Math.round((peak.ab - before.arrayBuffers) / MB),
        rssAbove,
        liveHeapAbove,
      };
    },
  };
}
