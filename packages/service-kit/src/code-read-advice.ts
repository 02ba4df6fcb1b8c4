import { type FileHandle, open, readFile, realpath } from "node:fs/promises";

// A service's code is mapped from files: the `node` binary (~100 MB, of which a process runs through
// ~40) and, in analytics, chDB's library (~540 MB, of which the engine runs through a few tens). When
// a page of such a mapping is not in memory, the kernel reads it with the block device's read-ahead
// window around it (`/sys/block/<dev>/queue/read_ahead_kb`: 128 KB by default, 8 MB on the disks of
// the hosts Kurz is measured on), so each fault brings in the window's unused neighbours too. On a
// memory-bounded server or container those pages are charged to it, and under load each window
// pushes out code that is running, which faults again: at 8 MB the stack in 600 MB from a cold page
// cache reads hundreds of GB again and analytics falls minutes behind (docs/benchmarks.md, footprint).
// Marked for random access, a fault reads only the page it needs. Pages already in memory are
// unaffected, so a warm host runs the same.

const MADV_RANDOM = 1;
const MADV_DONTDUMP = 16;
const MADV_PAGEOUT = 21;
/** The most of an executable mapping one fault reads: the kernel's default read-ahead. */
export const EXEC_READ_BYTES = 128 * 1024;

export interface Mapping {
  start: number;
  end: number;
  path: string;
  /** Mapped executable (`x` in its permissions). */
  exec: boolean;
}

/** Whether a mapped file is code: the executable, a shared library or a Node addon. */
export function isCodeFile(path: string, executable: string): boolean {
  return path === executable || /\.(so(\.\d+)*|node)$/.test(path);
}

/** The file-backed mappings of code, from the text of `/proc/<pid>/maps`. */
export function codeMappings(maps: string, executable: string): Mapping[] {
  const found: Mapping[] = [];
  for (const line of maps.split("\n")) {
    // start-end perms offset dev inode path; the path is absent for anonymous mappings, and a
    // deleted file's ends in " (deleted)".
    const fields = line.trim().split(/\s+/);
    const path = fields.slice(5).join(" ");
    if (fields.length < 6 || !isCodeFile(path, executable)) continue;
    const [start, end] = (fields[0] ?? "").split("-").map((hex) => Number.parseInt(hex, 16));
    if (start === undefined || end === undefined || !(end > start)) continue;
    found.push({ start, end, path, exec: (fields[1] ?? "").includes("x") });
  }
  return found;
}

export interface AdviceResult {
  /** The files whose mappings are now marked for random access. */
  files: string[];
  /** Why none are, when none are. */
  skipped?: string;
}

/** This process's code mappings (`/proc/self/maps`) and libc's madvise; throws when either is out of reach. */
async function ownCodeAndMadvise(): Promise<{ mappings: Mapping[]; madvise: Libc["madvise"] }> {
  const mappings = codeMappings(await readFile("/proc/self/maps", "utf8"), await realpath(process.execPath));
  return { mappings, madvise: (await loadLibc()).madvise };
}

interface Libc {
  madvise(addr: number, length: number, advice: number): number;
  posixFadvise(fd: number, offset: number, length: number, advice: number): number;
}

let libc: Promise<Libc> | undefined;
// Node has neither call; koffi calls libc's (docs/decisions/0025-dependencies.md).
const loadLibc = (): Promise<Libc> =>
  (libc ??= import("koffi").then(({ default: koffi }) => {
    const lib = koffi.load("libc.so.6");
    return {
      madvise: lib.func("int madvise(uintptr_t addr, size_t length, int advice)"),
      posixFadvise: lib.func("int posix_fadvise(int fd, int64_t offset, int64_t len, int advice)"),
    };
  }));

/**
 * Marks every code mapping of this process (see `codeMappings`) for random access (madvise
 * MADV_RANDOM), so that a page of it missing from memory is read alone. Linux only; elsewhere, or when
 * the call is refused, it changes nothing and says why: the process runs the same, with the device's
 * read-ahead on its code. Code loaded afterwards (an addon required later) keeps the read-ahead.
 */
export async function adviseCodeRandomAccess(): Promise<AdviceResult> {
  if (process.platform !== "linux") return { files: [], skipped: `not Linux (${process.platform})` };
  let mappings: Mapping[];
  let madvise: Libc["madvise"];
  try {
    ({ mappings, madvise } = await ownCodeAndMadvise());
  } catch (err) {
    return { files: [], skipped: (err as Error).message };
  }
  const files = new Set<string>();
  for (const { start, end, path, exec } of mappings) {
    if (madvise(start, end - start, MADV_RANDOM) !== 0) continue;
    files.add(path);
    // Linux 6.16 and later read an executable mapping's faults with the device's whole read-ahead
    // window whatever its advice, but never past the end of the mapping: every other chunk marked
    // apart (not dumped in a core file, which leaves a file's code out anyway) splits the mapping
    // into chunks of EXEC_READ_BYTES that the kernel cannot merge, so no fault reads more.
    if (exec)
      for (let at = start + EXEC_READ_BYTES; at < end; at += 2 * EXEC_READ_BYTES)
        madvise(at, Math.min(EXEC_READ_BYTES, end - at), MADV_DONTDUMP);
  }
  return files.size > 0 ? { files: [...files] } : { files: [], skipped: "madvise refused every mapping" };
}

const POSIX_FADV_DONTNEED = 4;

/**
 * Drops from the page cache the pages of `files` that no process maps (posix_fadvise DONTNEED leaves
 * mapped and dirty pages alone): after a service has started, the code it ran once to start and what
 * the loader read around it before the advice above. Returns how many files it was applied to.
 */
export async function dropUnmappedPages(files: string[]): Promise<number> {
  if (process.platform !== "linux" || files.length === 0) return 0;
  let posixFadvise: Libc["posixFadvise"];
  try {
    ({ posixFadvise } = await loadLibc());
  } catch {
    return 0;
  }
  let dropped = 0;
  for (const file of files) {
    let handle: FileHandle | undefined;
    try {
      handle = await open(file, "r");
      if (posixFadvise(handle.fd, 0, 0, POSIX_FADV_DONTNEED) === 0) dropped++;
    } catch {
      // A file replaced or removed since it was mapped: nothing of it to drop.
    } finally {
      await handle?.close();
    }
  }
  return dropped;
}

/**
 * Asks the kernel to reclaim now every page of this process's mappings of the code files named
 * `names` (madvise MADV_PAGEOUT; pages that other processes map too stay):
 * what such a library ran only to start, and what the loader read around it before the advice above,
 * often in large folios a single mapped page keeps whole. What runs afterwards is read back in
 * chunks of EXEC_READ_BYTES at most. Returns the bytes asked for.
 */
export async function pageOutCode(names: string[]): Promise<number> {
  if (process.platform !== "linux" || names.length === 0) return 0;
  let mappings: Mapping[];
  let madvise: Libc["madvise"];
  try {
    ({ mappings, madvise } = await ownCodeAndMadvise());
  } catch {
    return 0;
  }
  let asked = 0;
  for (const { start, end, path } of mappings)
    if (names.some((name) => path.endsWith(`/${name}`)) && madvise(start, end - start, MADV_PAGEOUT) === 0)
      asked += end - start;
  return asked;
}
