// A bundle is rebuilt when a source it is made from is newer than it. The test stacks (ensureBundles
// in @kurz/testing) and the admin CLI (infra/local/cli.ts) start services from their bundles with no
// build step of their own: a fresh clone's first start builds them, an edit rebuilds the bundles it
// touches, and any other start costs a walk over the sources' mtimes (a few hundred files, ~20 ms).
import { mkdirSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { bundle, bundleOutputs, SERVICES } from "./bundle.ts";

const root = resolve(import.meta.dirname, "../..");
// Machine-local state, git-ignored like the bundles.
const LOCK_DIR = join(root, ".data", "bundles.lock");
// A build takes seconds; a lock this old was left by a killed run.
const STALE_LOCK_MS = 120_000;

/** What an output is made from: the files under these directories, and these files. */
export interface Sources {
  dirs: string[];
  files: string[];
}

/** Something built from sources: the files it writes, and how to write them. */
export interface BuildTarget {
  name: string;
  outputs: string[];
  sources: Sources;
  build(): Promise<unknown>;
}

/**
 * What a service's bundles are made from: its own sources and every package's (the generated Prisma
 * client included), the build script, the memory-bounds entry every service carries with what it
 * imports, and the lockfile (a dependency upgrade changes bundled code).
 */
export function bundleSources(service: string): Sources {
  return {
    dirs: [join(root, "services", service), join(root, "packages")],
    files: [
      ...["bundle.ts", "memory-bounds.ts", "memory.ts", "node-flags.ts"].map((f) =>
        join(root, "infra/build", f),
      ),
      join(root, "pnpm-lock.yaml"),
    ],
  };
}

/**
 * The newest mtime (ms) of the sources' code, SQL and JSON files; tests, dependencies and earlier
 * builds (test, node_modules and dist directories) are not sources. `seen` keeps each directory's
 * figure for the other targets that share it.
 */
export function newestSourceMtime(sources: Sources, seen = new Map<string, number>()): number {
  const newestIn = (dir: string): number => {
    let newest = seen.get(dir);
    if (newest !== undefined) return newest;
    newest = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "test") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
      else if (/\.(ts|mts|mjs|js|json|sql)$/.test(entry.name))
        newest = Math.max(newest, statSync(path).mtimeMs);
    }
    seen.set(dir, newest);
    return newest;
  };
  let newest = 0;
  for (const dir of sources.dirs) newest = Math.max(newest, newestIn(dir));
  for (const file of sources.files) newest = Math.max(newest, statSync(file).mtimeMs);
  return newest;
}

/** Every output exists and none is older than the newest source. */
export function isFresh(
  target: Pick<BuildTarget, "outputs" | "sources">,
  seen?: Map<string, number>,
): boolean {
  const newest = newestSourceMtime(target.sources, seen);
  return target.outputs.every((output) => {
    try {
      return statSync(output).mtimeMs >= newest;
    } catch {
      return false;
    }
  });
}

/** One builder at a time across processes (test workers, CLI calls): a directory is made atomically. */
async function takeLock(lockDir: string): Promise<() => void> {
  mkdirSync(dirname(lockDir), { recursive: true });
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(lockDir);
      return () => rmdirSync(lockDir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(lockDir).mtimeMs;
      } catch {
        continue; // released between the two calls
      }
      if (age > STALE_LOCK_MS || Date.now() > deadline) rmSync(lockDir, { recursive: true, force: true });
      await sleep(100);
    }
  }
}

export interface EnsureFreshOptions {
  /** The lock every process building these targets takes (.data/bundles.lock by default). */
  lockDir?: string;
  /** Told which targets are about to be built, e.g. to say why this start takes seconds. */
  onBuild?: (names: string[]) => void;
}

/**
 * Builds each target whose outputs are missing or older than one of its sources, one builder at a
 * time across processes; resolves with the names of the targets this call built (none when all were
 * fresh, or another process built them meanwhile).
 */
export async function ensureFresh(
  targets: BuildTarget[],
  options: EnsureFreshOptions = {},
): Promise<string[]> {
  const seen = new Map<string, number>();
  if (targets.every((target) => isFresh(target, seen))) return [];
  const release = await takeLock(options.lockDir ?? LOCK_DIR);
  try {
    // Another process may have built them while this one waited for the lock.
    const recheck = new Map<string, number>();
    const stale = targets.filter((target) => !isFresh(target, recheck));
    if (stale.length === 0) return [];
    options.onBuild?.(stale.map((target) => target.name));
    await Promise.all(stale.map((target) => target.build()));
    return stale.map((target) => target.name);
  } finally {
    release();
  }
}

/** The bundles of `services` (every service by default), rebuilt where stale; resolves with those built. */
export function ensureFreshBundles(
  services: readonly string[] = SERVICES,
  options: EnsureFreshOptions = {},
): Promise<string[]> {
  return ensureFresh(
    services.map((service) => ({
      name: service,
      outputs: bundleOutputs(service),
      sources: bundleSources(service),
      build: () => bundle(service),
    })),
    options,
  );
}
