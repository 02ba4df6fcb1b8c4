// The process stack runs every service from its esbuild bundle, as `./kurz up` and the images do
// (docs/decisions/0001-runtime-layout-and-local-mode.md): closer to production, and each boot is
// about half the CPU of a tsx one. Bundles are rebuilt when any source they are made from is newer,
// once per change however many test files ask at the same time.
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { bundleAll, bundleEntries, bundlePath, nodeFlagsFor, SERVICES } from "../../../infra/build/bundle.ts";

export { bundlePath, nodeFlagsFor };

const root = resolve(import.meta.dirname, "../../..");
// What a bundle is made from: every service's and package's sources (the generated Prisma client
// included), the build script, and the lockfile (a dependency upgrade changes bundled code).
const SOURCE_DIRS = ["services", "packages"];
const SOURCE_FILES = ["infra/build/bundle.ts", "pnpm-lock.yaml"];
const LOCK_DIR = join(root, ".data", "bundles.lock");
// A build takes seconds; a lock this old was left by a killed run.
const STALE_LOCK_MS = 120_000;

function newestSourceMtime(): number {
  let newest = 0;
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist" || entry.name === "test") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(ts|mts|mjs|js|json|sql)$/.test(entry.name))
        newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const top of SOURCE_DIRS) visit(join(root, top));
  for (const file of SOURCE_FILES) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return newest;
}

function bundlesAreFresh(): boolean {
  const newest = newestSourceMtime();
  return SERVICES.every((s) => {
    try {
      return statSync(bundlePath(s)).mtimeMs >= newest;
    } catch {
      return false;
    }
  });
}

async function takeLock(): Promise<() => void> {
  mkdirSync(join(root, ".data"), { recursive: true });
  const deadline = Date.now() + STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      return () => rmdirSync(LOCK_DIR);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      let age = 0;
      try {
        age = Date.now() - statSync(LOCK_DIR).mtimeMs;
      } catch {
        continue; // released between the two calls
      }
      if (age > STALE_LOCK_MS || Date.now() > deadline) rmSync(LOCK_DIR, { recursive: true, force: true });
      await sleep(100);
    }
  }
}

let checked: Promise<void> | undefined;

/**
 * Makes sure services/<x>/dist holds bundles built from the current sources: builds them (one
 * builder at a time across the test workers) when a source is newer. Checked once per test file.
 */
export function ensureBundles(): Promise<void> {
  checked ??= (async () => {
    if (bundlesAreFresh()) return;
    const release = await takeLock();
    try {
      // Another worker may have built them while this one waited for the lock.
      if (!bundlesAreFresh()) await bundleAll();
    } finally {
      release();
    }
  })().catch((err: unknown) => {
    checked = undefined; // a failed build (e.g. a syntax error being fixed) is retried by the next stack
    throw err;
  });
  return checked;
}

const fixtures = new Map<string, Promise<string>>();

/**
 * A test fixture that runs in processes of its own (e.g. a consumer a test kills and restarts), bundled
 * once per test file as the services are: each start then costs ~0.5 s of CPU where
 * `node --import tsx <fixture>.ts` would compile the workspace again, ~2.4 s each. The bundle
 * goes to a temporary directory removed when the test process exits; returns its path.
 */
export function bundleFixture(entry: string): Promise<string> {
  let built = fixtures.get(entry);
  if (!built) {
    const outdir = mkdtempSync(join(tmpdir(), "kurz-fixture-"));
    process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
    const out = basename(entry).replace(/\.[mc]?ts$/, "");
    built = bundleEntries([{ in: resolve(entry), out }], outdir).then(() => join(outdir, `${out}.mjs`));
    fixtures.set(entry, built);
  }
  return built;
}
