// _pageout.py, which `./kurz bench footprint --reclaim` runs on the stack's processes, on a child of
// this test's own.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const linux = process.platform === "linux";
// _pageout.py needs Linux's process_madvise (5.10+) and the right to use it on the child (root or
// CAP_SYS_NICE), and python3.
const canPageOut =
  linux &&
  spawnSync("python3", [resolve(import.meta.dirname, "_pageout.py"), String(process.pid)]).status === 0;

/** The bytes of `pid`'s mappings of files, as /proc/<pid>/maps lists them. */
function fileMappedBytes(pid: number): number {
  let bytes = 0;
  for (const line of readFileSync(`/proc/${pid}/maps`, "utf8").split("\n")) {
    const [range, , , , , path] = line.split(/\s+/);
    if (!range || !path?.startsWith("/")) continue;
    const [start, end] = range.split("-").map((h) => Number.parseInt(h, 16));
    bytes += end! - start!;
  }
  return bytes;
}

describe.skipIf(!canPageOut)("_pageout.py (skipped without python3 or process_madvise)", () => {
  // Which pages the kernel then takes depends on what else maps them (this test's own process maps the
  // same node binary and libraries, which it leaves), so the test holds the request, not its effect.
  it("advises every file mapping of a live process and leaves it running", async () => {
    const child = spawn(
      process.execPath,
      ["-e", "process.stdout.write('ready\\n'); setInterval(() => {}, 1000)"],
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    try {
      await new Promise((ready) => child.stdout.once("data", ready));
      const mapped = fileMappedBytes(child.pid!);
      const out = spawnSync("python3", [resolve(import.meta.dirname, "_pageout.py"), String(child.pid)], {
        encoding: "utf8",
      });
      expect(out.status).toBe(0);
      expect(out.stdout.trim()).toBe(`${child.pid} ${mapped}`);
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });
});
