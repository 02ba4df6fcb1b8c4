// The resident memory of groups of processes, each a root process and everything it started (a
// service's children, such as a query engine or a compiler's service process), read from /proc every
// 250 ms for `./kurz bench footprint`: RSS and its anonymous and file-backed parts from /proc/<pid>/status,
// and PSS from /proc/<pid>/smaps_rollup (the kernel's own sum over the mappings: cheap beside reading
// smaps, and a page shared by several processes counted once over them all, so the groups' PSS add up to
// what the stack takes from the machine). Linux only; elsewhere every reading is undefined.
import { readdirSync, readFileSync } from "node:fs";

const SAMPLE_MS = 250;
/** How often the tree of descendants is read again: processes come and go far less often than RSS changes. */
const TREE_MS = 1_000;

export interface Rss {
  /** VmRSS: every resident page. */
  total: number;
  /** RssAnon: the process's own allocations (heaps, stacks), what the system must keep in memory. */
  anon: number;
  /** RssFile: mapped files (code of the binary and shared libraries), which the system can drop and read again. */
  file: number;
  /** Pss: each resident page divided among the processes that map it (0 where smaps_rollup is missing). */
  pss: number;
}

const ZERO: Rss = { total: 0, anon: 0, file: 0, pss: 0 };

function pssOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    return Number(/^Pss:\s+(\d+) kB$/m.exec(text)?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function statusOf(pid: number): Rss | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? 0) * 1024;
    return {
      total: kb("VmRSS"),
      anon: kb("RssAnon"),
      file: kb("RssFile") + kb("RssShmem"),
      pss: pssOf(pid),
    };
  } catch {
    return undefined;
  }
}

/** Every process's parent, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // The command name may hold spaces and parentheses: the fields after the last ")" are fixed.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      out.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Each group's processes: its root and the root's descendants, except those under another group's
 * root or under a root in `exclude` (a child that is not ours to count, such as the stack's Redis).
 */
export function members(roots: Record<string, number>, exclude: number[]): Record<string, number[]> {
  const parentOf = parents();
  const stopAt = new Set([...Object.values(roots), ...exclude]);
  const groupOf = (pid: number): string | undefined => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parentOf.get(p) ?? 0, hops++) {
      const group = Object.keys(roots).find((g) => roots[g] === p);
      if (group) return group;
      if (stopAt.has(p)) return undefined;
    }
    return undefined;
  };
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(roots).map((g) => [g, []]));
  for (const pid of parentOf.keys()) {
    const group = groupOf(pid);
    if (group) out[group]!.push(pid);
  }
  return out;
}

export interface Sample {
  at: number;
  phase: string;
  rss: Record<string, Rss | undefined>;
}

/** Samples the groups every 250 ms, each sample tagged with the phase set last, until stop(). */
export function sampleGroups(roots: () => Record<string, number>, exclude: () => number[]) {
  const samples: Sample[] = [];
  let phase = "start";
  let tree: Record<string, number[]> = {};
  let treeAt = 0;
  const sample = () => {
    if (Date.now() - treeAt >= TREE_MS) {
      tree = members(roots(), exclude());
      treeAt = Date.now();
    }
    const rss: Record<string, Rss | undefined> = {};
    for (const [group, pids] of Object.entries(tree)) {
      const readings = pids.map(statusOf).filter((r): r is Rss => r !== undefined);
      rss[group] =
        readings.length === 0
          ? undefined
          : readings.reduce(
              (a, b) => ({
                total: a.total + b.total,
                anon: a.anon + b.anon,
                file: a.file + b.file,
                pss: a.pss + b.pss,
              }),
              ZERO,
            );
    }
    samples.push({ at: Date.now(), phase, rss });
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  timer.unref();
  return {
    samples,
    /** The processes of each group right now. */
    members: () => members(roots(), exclude()),
    setPhase(next: string) {
      sample();
      phase = next;
    },
    stop() {
      clearInterval(timer);
      sample();
    },
  };
}
