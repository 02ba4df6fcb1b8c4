// A native addon cannot be bundled: its loader finds the platform's `.node` file beside its own
// package, which a bundle in services/<x>/dist is not. So every dependency of a bundled service that
// ships one (itself or through the platform packages it lists as optional dependencies) must be a
// runtime external, or the bundle dies on start (`./kurz up`, the images) while tests from source pass.
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { RUNTIME_EXTERNALS, SERVICES } from "./bundle.ts";

const root = resolve(import.meta.dirname, "../..");

/** The installed directory of `name` as `from` (a package directory) resolves it; null if absent. */
function packageDir(name: string, from: string): string | null {
  const dir = join(from, "node_modules", name);
  return existsSync(join(dir, "package.json")) ? realpathSync(dir) : null;
}

function hasAddon(dir: string, depth = 0): boolean {
  if (depth > 4) return false;
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules") continue;
    const path = join(dir, entry);
    if (entry.endsWith(".node") && statSync(path).isFile()) return true;
    if (statSync(path).isDirectory() && hasAddon(path, depth + 1)) return true;
  }
  return false;
}

/** Whether the package at `dir`, or an installed optional dependency of it, ships a `.node` file. */
function shipsAddon(dir: string): boolean {
  if (hasAddon(dir)) return true;
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  // pnpm installs a package's optional dependencies beside it in its store directory.
  const store = dirname(dir.includes("/@") ? dirname(dir) : dir);
  return Object.keys(manifest.optionalDependencies ?? {}).some((dep) => {
    const installed = packageDir(dep, dirname(store));
    return installed !== null && hasAddon(installed);
  });
}

describe("bundle externals", () => {
  it("leave out of every service's bundle each dependency that ships a native addon", () => {
    const missing: string[] = [];
    for (const service of SERVICES) {
      const dir = join(root, "services", service);
      const deps = Object.keys(
        JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).dependencies ?? {},
      );
      for (const dep of deps) {
        if (dep.startsWith("@kurz/")) continue;
        const installed = packageDir(dep, dir);
        if (installed !== null && shipsAddon(installed) && !RUNTIME_EXTERNALS.includes(dep))
          missing.push(`${service}: ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("recognises the addons it knows of", () => {
    const management = join(root, "services", "management");
    for (const dep of ["sharp", "@node-rs/argon2"])
      expect(shipsAddon(packageDir(dep, management)!), dep).toBe(true);
    expect(shipsAddon(packageDir("express", management)!)).toBe(false);
  });
});
