// A memory cgroup for the footprint bench (`--cgroup-mb`): the kernel holds every process in it to a
// limit, as a server of that size or a container's memory limit would, and counts what it charged them
// (anonymous memory, the page cache of the files they read and write, shared pages once), the file
// pages it read again because it had taken them to keep under the limit, and the processes it killed
// when reclaim was not enough. cgroup v2 where its memory controller is enabled,
// else cgroup v1's memory hierarchy; Linux only, and the directory must be writable (root, or a
// delegated subtree). A process joins the group before it starts (`wrap`), so everything it starts is
// in the group too and charged from its first page.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const MB = 2 ** 20;
/** The kernel counts refaults in pages; x86-64's. */
const PAGE_BYTES = 4096;

/**
 * Where each version keeps what this module reads and writes: its root, the limit, the swap limit
 * beside it, the usage and its peak, the file with the kill count and that count's key, and the keys of
 * memory.stat (v1's hierarchical totals, v2's own).
 */
const LAYOUT = {
  1: {
    root: "/sys/fs/cgroup/memory",
    limit: "memory.limit_in_bytes",
    // With swap accounting on, memory plus swap gets the same limit: no swapping past it.
    swap: "memory.memsw.limit_in_bytes",
    usage: "memory.usage_in_bytes",
    peak: "memory.max_usage_in_bytes",
    kills: ["memory.oom_control", "oom_kill"],
    stat: {
      anon: "total_rss",
      file: "total_cache",
      shmem: "total_shmem",
      inactiveFile: "total_inactive_file",
      refaults: "total_workingset_refault_file",
    },
  },
  2: {
    root: "/sys/fs/cgroup",
    limit: "memory.max",
    swap: "memory.swap.max",
    usage: "memory.current",
    peak: "memory.peak",
    kills: ["memory.events", "oom_kill"],
    stat: {
      anon: "anon",
      file: "file",
      shmem: "shmem",
      inactiveFile: "inactive_file",
      refaults: "workingset_refault_file",
    },
  },
} as const;

export interface CgroupReading {
  /** Every byte charged now. */
  usage: number;
  /** Anonymous memory (heaps, stacks): what only an out-of-memory kill can take back without swap. */
  anon: number;
  /** Page cache charged: mapped code and data files, files read and written, tmpfs (shmem) included. */
  file: number;
  /** tmpfs and shared memory within `file`, which without swap cannot be reclaimed either. */
  shmem: number;
  /**
   * The charge less the file pages on the inactive list, which the kernel takes back first and without
   * a write: the working set, as `docker stats` and Kubernetes' eviction count a container's memory.
   */
  workingSet: number;
  /** Bytes of file pages read again after reclaim took them: how hard the limit pressed. */
  refaultBytes: number;
  /** Processes the kernel killed for the group. */
  oomKills: number;
}

export interface MemoryCgroup {
  path: string;
  version: 1 | 2;
  limitBytes: number;
  /** A command and its arguments that run `argv` inside the group. */
  wrap(argv: string[]): [string, string[]];
  /** Moves a running process in (what it was charged before stays where it was). */
  join(pid: number): void;
  /** Moves a process out, to the group's parent (what its pages were charged so far stays charged here). */
  release(pid: number): void;
  read(): CgroupReading;
  /** The highest usage since the group was made (v2 kernels without memory.peak: undefined). */
  peak(): number | undefined;
  /** Removes the group; its processes must have ended. */
  remove(): void;
}

/** Which cgroup version has a memory hierarchy here, or why none has. */
export function cgroupVersion(): 1 | 2 | { unavailable: string } {
  const controllers = readOr(join(LAYOUT[2].root, "cgroup.controllers"));
  if (controllers?.split(/\s+/).includes("memory")) return 2;
  if (existsSync(join(LAYOUT[1].root, LAYOUT[1].limit))) return 1;
  return {
    unavailable:
      "no memory cgroup here (cgroup v2 without its memory controller, and no cgroup v1 memory hierarchy)",
  };
}

/** Whether a memory cgroup with a limit can be made here now (root, or a delegated cgroup). */
export function canMakeCgroup(): boolean {
  try {
    memoryCgroup(`kurz-probe-${process.pid}`, 1).remove();
    return true;
  } catch {
    return false;
  }
}

/** A new memory cgroup `name` limited to `limitMb` MB (no swap beyond it where the kernel offers the setting). */
export function memoryCgroup(name: string, limitMb: number): MemoryCgroup {
  const version = cgroupVersion();
  if (typeof version !== "number") throw new Error(version.unavailable);
  const layout = LAYOUT[version];
  const path = join(layout.root, name);
  const limitBytes = Math.round(limitMb * MB);
  try {
    mkdirSync(path);
  } catch (error) {
    throw new Error(`cannot make the memory cgroup ${path} (root or a delegated cgroup is needed): ${error}`);
  }
  const file = (f: string) => join(path, f);
  // On v2, a parent that does not hand its children the memory controller gives them no limit to set.
  if (!existsSync(file(layout.limit))) {
    rmdirSync(path);
    throw new Error(
      `the cgroup ${path} has no ${layout.limit}: its parent does not hand it the memory controller`,
    );
  }
  writeFileSync(file(layout.limit), String(limitBytes));
  if (existsSync(file(layout.swap)))
    writeFileSync(file(layout.swap), version === 2 ? "0" : String(limitBytes));
  return {
    path,
    version,
    limitBytes,
    wrap: (argv) => ["sh", ["-c", 'echo $$ > "$0" && exec "$@"', file("cgroup.procs"), ...argv]],
    join(pid) {
      writeFileSync(file("cgroup.procs"), String(pid));
    },
    release(pid) {
      writeFileSync(join(dirname(path), "cgroup.procs"), String(pid));
    },
    read() {
      const stat = keyed(readOr(file("memory.stat")) ?? "");
      const [killsFile, killsKey] = layout.kills;
      const usage = Number(readOr(file(layout.usage)) ?? 0);
      return {
        usage,
        anon: stat[layout.stat.anon] ?? 0,
        file: stat[layout.stat.file] ?? 0,
        shmem: stat[layout.stat.shmem] ?? 0,
        workingSet: Math.max(0, usage - (stat[layout.stat.inactiveFile] ?? 0)),
        refaultBytes: (stat[layout.stat.refaults] ?? 0) * PAGE_BYTES,
        oomKills: keyed(readOr(file(killsFile)) ?? "")[killsKey] ?? 0,
      };
    },
    peak() {
      const text = readOr(file(layout.peak));
      return text === undefined ? undefined : Number(text);
    },
    remove() {
      rmdirSync(path);
    },
  };
}

function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** "key value" lines as numbers. */
function keyed(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out[k] = Number(v);
  }
  return out;
}
