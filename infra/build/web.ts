// `node --import tsx infra/build/web.ts`: builds the dashboard (services/web) with Vite into
// services/web/dist, which the gateway serves (services/gateway/src/web-app.ts). Skipped when dist is
// newer than every source it is made from (`--force` builds anyway). The build goes to a temporary
// directory and replaces dist whole, so a server never sees half of two builds.
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";

const root = resolve(import.meta.dirname, "../..");
export const WEB_DIR = join(root, "services/web");
export const WEB_DIST = join(WEB_DIR, "dist");
// The dashboard imports its wire shapes from packages/contracts: a contract change rebuilds it.
const SOURCES = [
  join(WEB_DIR, "src"),
  join(WEB_DIR, "index.html"),
  join(WEB_DIR, "vite.config.ts"),
  join(root, "packages/contracts/src"),
  join(root, "pnpm-lock.yaml"),
];

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)));
  return max;
}

export function webIsFresh(): boolean {
  try {
    return statSync(join(WEB_DIST, "index.html")).mtimeMs >= Math.max(...SOURCES.map(newest));
  } catch {
    return false;
  }
}

// Test files build before they start, several at once: one builds, the others wait and find it fresh.
const LOCK_DIR = join(root, ".data", "web-build.lock");
const STALE_LOCK_MS = 120_000;

async function takeLock(): Promise<() => void> {
  mkdirSync(join(root, ".data"), { recursive: true });
  for (const deadline = Date.now() + STALE_LOCK_MS; ; ) {
    try {
      mkdirSync(LOCK_DIR);
      return () => rmdirSync(LOCK_DIR);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (Date.now() > deadline) rmSync(LOCK_DIR, { recursive: true, force: true }); // left by a killed build
      await sleep(200);
    }
  }
}

/** Builds services/web/dist unless fresh; returns whether it built. */
export async function buildWeb({ force = false } = {}): Promise<boolean> {
  if (!force && webIsFresh()) return false;
  const release = await takeLock();
  try {
    if (!force && webIsFresh()) return false;
    // Vite is the web package's dependency, resolved from there (pnpm links it only into services/web).
    const vite = createRequire(join(WEB_DIR, "package.json")).resolve("vite");
    const { build } = (await import(pathToFileURL(vite).href)) as {
      build(config: Record<string, unknown>): Promise<unknown>;
    };
    const tmp = join(WEB_DIR, `.dist-${process.pid}`);
    await build({
      configFile: join(WEB_DIR, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: tmp, emptyOutDir: true },
    });
    rmSync(WEB_DIST, { recursive: true, force: true });
    renameSync(tmp, WEB_DIST);
    return true;
  } finally {
    release();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = Date.now();
  const built = await buildWeb({ force: process.argv.includes("--force") });
  console.log(
    built
      ? `built services/web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`
      : "services/web/dist is up to date",
  );
}
