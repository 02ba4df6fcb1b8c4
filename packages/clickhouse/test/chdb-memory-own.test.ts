// Embedded chDB counts its own memory against its bound, not the memory of the cgroup it shares with
// the rest of the stack. A second process holds more than the engine's whole bound where ClickHouse
// would look for the server's memory (the process's own cgroup on cgroup v2; on v1 the memory
// hierarchy's root, which takes a process only from root), and the engine still answers queries. A
// file of its own: one chDB engine per process, and these are its start-up settings.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse } from "../src/index.ts";

const ENGINE_MB = 200;
const HELD_MB = 400;
const V1_ROOT = "/sys/fs/cgroup/memory/cgroup.procs";

/** Where the engine would read a cgroup's memory, and whether a process can be put there. */
function cgroupTheEngineReads(): "v2" | "v1" | null {
  if (existsSync("/sys/fs/cgroup/cgroup.controllers")) return "v2";
  if (!existsSync(V1_ROOT)) return null;
  try {
    // Writing our own pid back where it already is would move it; probe with a pid that does not
    // exist instead: EACCES/EROFS say no, ESRCH says the file takes writes.
    writeFileSync(V1_ROOT, "2147483646");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH" ? "v1" : null;
  }
  return "v1";
}

const where = cgroupTheEngineReads();
const dir = mkdtempSync(join(tmpdir(), "kurz-chdb-own-"));
let ch: KurzClickHouse;
let holder: ChildProcess | undefined;

beforeAll(async () => {
  if (!where) return;
  // cgroup v2: a child starts in its parent's cgroup, the engine's. v1: the holder joins the root
  // before it allocates, since v1 leaves memory charged where it was allocated when a process moves.
  const intoRoot =
    where === "v1"
      ? `require("node:fs").writeFileSync(${JSON.stringify(V1_ROOT)}, String(process.pid));`
      : "";
  holder = spawn(
    process.execPath,
    [
      "-e",
      `${intoRoot} const held = Buffer.alloc(${HELD_MB} * 2 ** 20, 1); process.stdout.write("held\\n"); setInterval(() => held[0]++, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await once(holder.stdout!, "data");
  ch = await createClickHouse({ path: dir, memory: { engineMb: ENGINE_MB, queryMb: 100, cacheMb: 8 } });
});

afterAll(async () => {
  holder?.kill("SIGKILL");
  await ch?.close();
  rmSync(dir, { recursive: true, force: true });
});

const runs = async () =>
  Number(
    (await ch.query<{ value: number }>("SELECT value FROM system.events WHERE event = 'MemoryWorkerRun'"))[0]
      ?.value ?? 0,
  );

it.skipIf(!where)(
  "answers queries while another process in its cgroup holds more than the engine's whole bound (skipped where no process can be put in the cgroup the engine would read)",
  async () => {
    // The engine's memory worker reads the memory it counts every 50–100 ms: wait for two readings
    // taken with the other process's memory in place.
    const first = await runs();
    await expect.poll(runs, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(first + 2);
    const [row] = await ch.query<{ n: number }>(
      "SELECT count() AS n FROM (SELECT toString(number) AS s FROM numbers(1000000) ORDER BY s DESC LIMIT 10)",
    );
    expect(row).toEqual({ n: 10 });
    const [tracked] = await ch.query<{ value: number }>(
      "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'",
    );
    expect(tracked!.value).toBeLessThan(ENGINE_MB * 2 ** 20);
  },
);
