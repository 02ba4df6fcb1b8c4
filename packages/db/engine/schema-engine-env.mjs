// Decides how the Prisma CLI gets its schema engine. Order of preference:
//   1. the caller's own PRISMA_SCHEMA_ENGINE_BINARY (or the deprecated PRISMA_MIGRATION_ENGINE_BINARY);
//   2. KURZ_SCHEMA_ENGINE=native: let the CLI download and use its native engine (needs network);
//   3. a native engine already on disk (e.g. installed by @prisma/engines' postinstall);
//   4. otherwise our WASM shim, because the CLI's download fails without network access.
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SCHEMA_ENGINE_SHIM = join(dirname(fileURLToPath(import.meta.url)), "schema-engine-shim.mjs");

const require = createRequire(import.meta.url);

function hasNativeEngine(dir) {
  return existsSync(dir) && readdirSync(dir).some((name) => /^schema-engine-(?!wasm)/.test(name));
}

// Mirrors where the CLI looks (prisma/build/cli.js, resolveBinary): @prisma/engines, then the prisma package.
export function nativeSchemaEngineInstalled() {
  const prismaDir = dirname(require.resolve("prisma/package.json"));
  const candidates = [prismaDir, join(prismaDir, "build"), join(prismaDir, "runtime")];
  try {
    const fromPrisma = createRequire(join(prismaDir, "package.json"));
    candidates.unshift(dirname(fromPrisma.resolve("@prisma/engines/package.json")));
  } catch {
    // @prisma/engines is a dependency of prisma; if it cannot be resolved, the other places still count.
  }
  return candidates.some(hasNativeEngine);
}

/** Environment additions for spawning the Prisma CLI; empty when the native engine is to be used. */
export function schemaEngineEnv(env = process.env) {
  if (env.PRISMA_SCHEMA_ENGINE_BINARY || env.PRISMA_MIGRATION_ENGINE_BINARY) return {};
  const choice = env.KURZ_SCHEMA_ENGINE ?? "auto";
  if (choice === "native") return {};
  if (choice === "auto" && nativeSchemaEngineInstalled()) return {};
  if (choice !== "auto" && choice !== "wasm") {
    throw new Error(`KURZ_SCHEMA_ENGINE must be auto, native or wasm (got "${choice}")`);
  }
  return { PRISMA_SCHEMA_ENGINE_BINARY: SCHEMA_ENGINE_SHIM };
}

export const PRISMA_CLI = require.resolve("prisma/build/index.js");
export const PACKAGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
