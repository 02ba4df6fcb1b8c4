// The tests' temporary files on a memory file system (/dev/shm), not the disk's.
//
// A run creates and deletes tens of thousands of files: each stack's chDB data directory (a template's
// copy, then ClickHouse's parts as they are written and merged), spool directories, Chromium profiles,
// DNS and nginx configurations. On these machines the disk is ext4 without a journal, where creating a
// file skips every inode of its group deleted in the last minutes, reading each from the buffer cache:
// with a run's churn, a quarter of the kernel's time and a tenth of the whole run's CPU go to
// `recently_deleted` and `find_get_block_common` under openat and mkdir (perf;
// docs/benchmarks/2026-11.md, "`./kurz test`"). tmpfs has no such scan.
//
// Everything that makes scratch files asks os.tmpdir(), which reads TMPDIR, and the services a test
// starts as processes inherit it. The root vitest.config.ts calls this before any worker starts, and
// removes the run's directory when the run ends: what a test left there (a fixture's bundle whose
// worker was ended without its exit handlers, a killed service's spool) would otherwise hold memory.
import {
  accessSync,
  chmodSync,
  constants,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import { join } from "node:path";

/** statfs' type of a tmpfs. */
export const TMPFS_MAGIC = 0x01021994;
/** Below this much free memory file system, the disk's temporary directory is used as before. */
const MIN_FREE_BYTES = 2 * 1024 ** 3;
/** Left behind by a killed run: removed by a later one. */
const STALE_MS = 24 * 60 * 60_000;

export interface MemoryTmpdirOptions {
  /** The memory file system's mount point. */
  mount?: string;
  env?: NodeJS.ProcessEnv;
  /** The time other runs' directories are judged by; by default the file system's (below). */
  now?: number;
}

/**
 * Points TMPDIR at a directory of this run's own under `<mount>/kurz-test` when `mount` is a tmpfs with
 * room, and TMPDIR is not set already (a developer's own choice wins; KURZ_TEST_TMPDIR=disk turns this
 * off). The port claims (net.ts) stay shared between runs, beside it. Returns the run's directory, or
 * undefined when nothing changed.
 */
export function useMemoryTmpdir(options: MemoryTmpdirOptions = {}): string | undefined {
  const { mount = "/dev/shm", env = process.env } = options;
  if (env.TMPDIR || env.KURZ_TEST_TMPDIR === "disk") return undefined;
  try {
    const fs = statfsSync(mount);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < MIN_FREE_BYTES) return undefined;
    const shared = join(mount, "kurz-test");
    mkdirSync(shared, { recursive: true });
    accessSync(shared, constants.W_OK);
    const run = mkdtempSync(join(shared, "run-"));
    // Ages are measured on the file system's clock, which stamped the other runs' directories too (the
    // new directory's time): a run under a faked clock (faketime) takes no live run for a stale one.
    removeStale(shared, options.now ?? statSync(run).mtimeMs, run);
    chmodSync(run, 0o755); // servers a test runs as another user (the postgres of tests/chaos) reach in
    env.KURZ_PORT_CLAIMS_DIR ||= join(shared, "kurz-port-claims");
    env.TMPDIR = run;
    return run;
  } catch {
    return undefined; // no /dev/shm, or not ours to write: the disk's temporary directory
  }
}

/** Runs that were killed: their memory stays taken until removed. */
function removeStale(dir: string, now: number, own: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === own) continue;
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed meanwhile by its own run
    }
  }
}
