// The smaps breakdown the footprint bench prints, read on this test's own process (Linux only).
import { readFileSync } from "node:fs";
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
