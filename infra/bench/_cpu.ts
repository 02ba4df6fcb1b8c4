// CPU time per request of each process while a load runs (profile before tuning): user + system
// time from /proc/<pid>/stat before and after, divided by the requests served. Linux only; elsewhere
// the figures are absent and the report says so.
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux this runs on (getconf CLK_TCK). */
const TICKS_PER_SECOND = 100;

/** User + system CPU of a process in milliseconds, or undefined when /proc cannot tell. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** Every process whose command name is `comm` (Postgres backends, the Redis server), now. */
export function pidsNamed(comm: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc", { withFileTypes: true })) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      if (readFileSync(`/proc/${entry.name}/comm`, "utf8").trim() === comm) found.push(Number(entry.name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const readAll = (pids: number[]) => new Map(pids.map((pid) => [pid, cpuMsOf(pid)]));

/**
 * Starts counting; `perRequest(n)` gives each group's CPU ms per request over the n served since. A
 * group is one process or several (all Postgres backends); only processes alive at both readings
 * count, so a backend of another client that ends meanwhile is left out rather than making it wrong.
 */
export function cpuMeter(groups: Record<string, number | number[]>) {
  const pidsOf = (g: number | number[]) => (Array.isArray(g) ? g : [g]);
  const start = Object.fromEntries(Object.entries(groups).map(([name, g]) => [name, readAll(pidsOf(g))]));
  const self = process.cpuUsage();
  return {
    perRequest(requests: number): Record<string, number | undefined> {
      const out: Record<string, number | undefined> = {};
      for (const [name, g] of Object.entries(groups)) {
        let total = 0;
        let alive = 0;
        for (const pid of pidsOf(g)) {
          const before = start[name]!.get(pid);
          const after = cpuMsOf(pid);
          if (before === undefined || after === undefined) continue;
          total += after - before;
          alive++;
        }
        out[name] = alive === 0 ? undefined : total / requests;
      }
      const used = process.cpuUsage(self);
      out["bench client (autocannon)"] = (used.user + used.system) / 1000 / requests;
      return out;
    },
  };
}
