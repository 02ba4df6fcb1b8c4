// _cgroup.ts, which `./kurz bench footprint --cgroup-mb` runs the stack in, on children of this test's own.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { canMakeCgroup, type MemoryCgroup, memoryCgroup } from "./_cgroup.ts";

const MB = 2 ** 20;
const DATA = resolve(import.meta.dirname, "../../.data");
/** Node in the group, holding `mb` MB of written memory once it says "ready", until its stdin closes. */
function holder(group: MemoryCgroup, mb: number) {
  const script = `const held = []; for (let i = 0; i < ${mb}; i++) held.push(Buffer.alloc(${MB}, 1));
    process.stdout.write("ready\\n"); process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`;
  const [command, args] = group.wrap([process.execPath, "-e", script]);
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "ignore"] });
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal })),
  );
  const ready = new Promise<boolean>((done) => {
    child.stdout.once("data", () => done(true));
    void exited.then(() => done(false));
  });
  return { child, ready, exited };
}

describe.skipIf(!canMakeCgroup())("_cgroup.ts (skipped where no writable memory cgroup exists)", () => {
  const groups: MemoryCgroup[] = [];
  let made = 0;
  const group = (limitMb: number) => {
    const g = memoryCgroup(`kurz-test-${process.pid}-${made++}`, limitMb);
    groups.push(g);
    return g;
  };
  const removeAll = () => {
    for (const g of groups.splice(0)) g.remove();
  };

  it("charges the group with what its process holds, and takes the process out on release", async () => {
    try {
      const g = group(256);
      const h = holder(g, 40);
      expect(await h.ready).toBe(true);
      const r = g.read();
      expect(r.anon).toBeGreaterThanOrEqual(40 * MB);
      expect(r.usage).toBeGreaterThanOrEqual(r.anon);
      expect(r.oomKills).toBe(0);
      const cgroupOf = () => readFileSync(`/proc/${h.child.pid}/cgroup`, "utf8");
      expect(cgroupOf()).toContain(g.path.split("/").at(-1));
      g.release(h.child.pid!);
      expect(cgroupOf()).not.toContain(g.path.split("/").at(-1));
      h.child.stdin.end();
      expect(await h.exited).toEqual({ code: 0, signal: null });
    } finally {
      removeAll();
    }
  });

  it("counts file pages read once apart from the working set, and held memory in it", async () => {
    // On disk: the tests' TMPDIR may be a tmpfs, whose pages are swap-backed, not file pages.
    mkdirSync(DATA, { recursive: true });
    const dir = mkdtempSync(join(DATA, "cgroup-"));
    try {
      const g = group(256);
      // Written once and read once, by a process in the group: charged to it, on the inactive list.
      const file = join(dir, "once");
      const [command, args] = g.wrap([
        process.execPath,
        "-e",
        `const fs = require("fs"); fs.writeFileSync(${JSON.stringify(file)}, Buffer.alloc(${32 * MB}, 7)); fs.readFileSync(${JSON.stringify(file)});`,
      ]);
      await new Promise((done, fail) =>
        spawn(command, args, { stdio: "ignore" }).once("exit", (code) =>
          code === 0 ? done(undefined) : fail(new Error(`writer exited ${code}`)),
        ),
      );
      const h = holder(g, 40);
      try {
        expect(await h.ready).toBe(true);
        const r = g.read();
        expect(r.file).toBeGreaterThanOrEqual(32 * MB);
        expect(r.workingSet).toBeGreaterThanOrEqual(40 * MB);
        expect(r.usage - r.workingSet).toBeGreaterThanOrEqual(24 * MB);
      } finally {
        h.child.stdin.end();
        await h.exited;
      }
    } finally {
      removeAll();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("holds its processes to the limit: one that needs more is killed, and the kill is counted", async () => {
    try {
      const g = group(64);
      const h = holder(g, 160);
      expect(await h.ready).toBe(false);
      expect((await h.exited).signal).toBe("SIGKILL");
      const r = g.read();
      expect(r.oomKills).toBe(1);
      // The group's peak is read from the kernel: the child got as far as the limit.
      const peak = g.peak();
      if (peak !== undefined) expect(peak).toBeGreaterThan(0.9 * g.limitBytes);
    } finally {
      removeAll();
    }
  });
});
