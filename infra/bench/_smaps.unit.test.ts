// The smaps breakdown the footprint bench prints, read on this test's own process (Linux only).
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { PARTS, smapsOf, smapsOfAll } from "./_smaps.ts";

const linux = process.platform === "linux";

describe.skipIf(!linux)("smapsOf", () => {
  it("puts every resident page of a process in one part, the node binary's clean", () => {
    const kb = (field: string) =>
      Number(
        new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync("/proc/self/status", "utf8"))![1],
      ) * 1024;
    const before = kb("VmRSS");
    const b = smapsOf(process.pid)!;
    const after = kb("VmRSS");
    const total = PARTS.reduce((a, p) => a + b[p].rss, 0);
    // RSS moves a little between the two readings; the parts add up to it within that.
    expect(total).toBeGreaterThan(Math.min(before, after) * 0.9);
    expect(total).toBeLessThan(Math.max(before, after) * 1.1);
    for (const p of PARTS) expect(b[p].clean + b[p].dirty).toBeLessThanOrEqual(b[p].rss + 4096);
    expect(b.node.rss).toBeGreaterThan(0);
    expect(b.node.clean).toBeGreaterThan(b.node.dirty);
    expect(b.anonymous.dirty).toBeGreaterThan(0);
  });

  it("is undefined for a process that is not there, and adds several up", () => {
    expect(smapsOf(2 ** 30)).toBeUndefined();
    expect(smapsOfAll([2 ** 30])).toBeUndefined();
    const one = smapsOfAll([process.pid])!;
    expect(one.node.rss).toBeGreaterThan(0);
  });
});

// _pageout.py needs Linux's process_madvise (5.10+) and the right to use it on the child (root or
// CAP_SYS_NICE), and python3.
const canPageOut =
  linux &&
  spawnSync("python3", [resolve(import.meta.dirname, "_pageout.py"), String(process.pid)]).status === 0;

describe.skipIf(!canPageOut)("_pageout.py (skipped without python3 or process_madvise)", () => {
  it("asks the kernel to reclaim a live process's file pages and leaves it running", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const before = smapsOf(child.pid!)!;
      const out = spawnSync("python3", [resolve(import.meta.dirname, "_pageout.py"), String(child.pid)], {
        encoding: "utf8",
      });
      expect(out.status).toBe(0);
      const [pid, advised] = out.stdout.trim().split(" ");
      expect(pid).toBe(String(child.pid));
      // Every byte of every file mapping was advised, whether or not the kernel could take the page.
      expect(Number(advised)).toBeGreaterThan(before.node.rss);
      const after = smapsOf(child.pid!)!;
      const fileRss = (b: typeof before) => b.node.rss + b.libraries.rss + b.files.rss;
      expect(fileRss(after)).toBeLessThanOrEqual(fileRss(before));
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill();
    }
  });
});
