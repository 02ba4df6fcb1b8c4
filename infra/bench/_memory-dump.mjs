// Preloaded into every Node process of the stack `./kurz bench footprint` starts (NODE_OPTIONS
// --import): on SIGUSR2 the process writes its memory breakdown to KURZ_MEMORY_DUMP_DIR/<pid>.json
// and carries on. A signal handler and a file write, nothing listening: the public port never sees it,
// and a process outside the bench never loads it. Plain ESM, because the services run from bundles
// without a TypeScript loader.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const dir = process.env.KURZ_MEMORY_DUMP_DIR;
if (dir) {
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
    };
    // Whole or not at all: the bench reads the file as soon as it appears.
    const file = join(dir, `${process.pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(dump));
    renameSync(`${file}.tmp`, file);
  });
}
