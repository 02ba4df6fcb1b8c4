// Preloaded into every Node process of the stack `./kurz bench footprint` starts (NODE_OPTIONS
// --import): on SIGUSR2 the process writes its memory breakdown to KURZ_MEMORY_DUMP_DIR/<pid>.json
// and carries on, with how long its event loop was held up and its garbage collections took since the
// dump before (a request waits for both). A signal handler and a file write, nothing listening: the public port never sees it,
// and a process outside the bench never loads it. Plain ESM, because the services run from bundles
// without a TypeScript loader.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const dir = process.env.KURZ_MEMORY_DUMP_DIR;
if (dir) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const gc = { count: 0, ms: 0, maxMs: 0 };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.ms += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  process.on("SIGUSR2", () => {
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [
        s.space_name,
        { size: s.space_size, used: s.space_used_size, physical: s.physical_space_size },
      ]),
    );
    const heap = getHeapStatistics();
    const dump = {
      at: Date.now(),
      usage: process.memoryUsage(),
      heapLimit: heap.heap_size_limit,
      malloced: heap.malloced_memory,
      spaces,
      // Since the dump before, ms.
      loop: { maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6 },
      gc: { ...gc },
    };
    delay.reset();
    Object.assign(gc, { count: 0, ms: 0, maxMs: 0 });
    // Whole or not at all: the bench reads the file as soon as it appears.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(dump));
    renameSync(`${file}.tmp`, file);
  });
}
