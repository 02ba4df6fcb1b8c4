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
const V2_ROOT = "/sys/fs/cgroup";
const V1_ROOT = "/sys/fs/cgroup/memory";
const LIMIT_FILE = { 1: "memory.limit_in_bytes", 2: "memory.max" } as const;

export interface CgroupReading {
  /** Every byte charged now. */
  usage: number;
  /** Anonymous memory (heaps, stacks): what only an out-of-memory kill can take back without swap. */
  anon: number;
  /** Page cache charged: mapped code and data files, files read and written, tmpfs (shmem) included. */
  file: number;
  /** tmpfs and shared memory within `file`, which without swap cannot be reclaimed either. */
  shmem: number;
  /** File pages read again after reclaim took them: how hard the limit pressed. */
  refaults: number;
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

/** Where memory cgroups can be made here, or why they cannot. */
export function cgroupRoot(): { version: 1 | 2; root: string } | { unavailable: string } {
  const controllers = readOr(join(V2_ROOT, "cgroup.controllers"));
  if (controllers?.split(/\s+/).includes("memory")) return { version: 2, root: V2_ROOT };
  if (existsSync(join(V1_ROOT, "memory.limit_in_bytes"))) return { version: 1, root: V1_ROOT };
  return {
    unavailable:
      "no memory cgroup here (cgroup v2 without its memory controller, and no cgroup v1 memory hierarchy)",
  };
}

/**
 * Whether a memory cgroup can be made here now: the hierarchy exists and is writable (root, or
 * delegated), and a group made in it has a memory limit to set (on cgroup v2, only where the parent
 * hands its children the memory controller).
 */
export function canMakeCgroup(): boolean {
  const where = cgroupRoot();
  if ("unavailable" in where) return false;
  const probe = join(where.root, `kurz-probe-${process.pid}`);
  try {
    mkdirSync(probe);
  } catch {
    return false;
  }
  try {
    return existsSync(join(probe, LIMIT_FILE[where.version]));
  } finally {
    rmdirSync(probe);
  }
}

/** A new memory cgroup `name` limited to `limitMb` MB (no swap beyond it where the kernel offers the setting). */
export function memoryCgroup(name: string, limitMb: number): MemoryCgroup {
  const where = cgroupRoot();
  if ("unavailable" in where) throw new Error(where.unavailable);
  const { version, root } = where;
  const path = join(root, name);
  const limitBytes = Math.round(limitMb * MB);
  try {
    mkdirSync(path);
  } catch (error) {
    throw new Error(`cannot make the memory cgroup ${path} (root or a delegated cgroup is needed): ${error}`);
  }
  const file = (f: string) => join(path, f);
  if (!existsSync(file(LIMIT_FILE[version]))) {
    rmdirSync(path);
    throw new Error(
      `the cgroup ${path} has no ${LIMIT_FILE[version]}: its parent does not hand it the memory controller`,
    );
  }
  if (version === 2) {
    writeFileSync(file("memory.max"), String(limitBytes));
    if (existsSync(file("memory.swap.max"))) writeFileSync(file("memory.swap.max"), "0");
  } else {
    writeFileSync(file("memory.limit_in_bytes"), String(limitBytes));
    // Where swap accounting is on, memory plus swap gets the same limit: no swapping past it.
    if (existsSync(file("memory.memsw.limit_in_bytes")))
      writeFileSync(file("memory.memsw.limit_in_bytes"), String(limitBytes));
  }
  const stat = () => keyed(readOr(file("memory.stat")) ?? "");
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
      const s = stat();
      if (version === 2) {
        const events = keyed(readOr(file("memory.events")) ?? "");
        return {
          usage: Number(readOr(file("memory.current")) ?? 0),
          anon: s.anon ?? 0,
          file: s.file ?? 0,
          shmem: s.shmem ?? 0,
          refaults: s.workingset_refault_file ?? s.workingset_refault ?? 0,
          oomKills: events.oom_kill ?? 0,
        };
      }
      const oom = keyed(readOr(file("memory.oom_control")) ?? "");
      return {
        usage: Number(readOr(file("memory.usage_in_bytes")) ?? 0),
        anon: s.total_rss ?? 0,
        file: s.total_cache ?? 0,
        shmem: s.total_shmem ?? 0,
        refaults: s.total_workingset_refault_file ?? 0,
        oomKills: oom.oom_kill ?? 0,
      };
    },
    peak() {
      const text = readOr(file(version === 2 ? "memory.peak" : "memory.max_usage_in_bytes"));
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
