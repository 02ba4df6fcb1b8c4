// The freshness check the test stacks and `./kurz`'s admin commands rely on (fresh.ts), on a tree of
// temporary files whose mtimes the test sets: an output older than any of its sources is rebuilt, a
// fresh one is not, and what is not a source (tests, node_modules, earlier builds) never counts.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bundleOutputs } from "./bundle.ts";
import { type BuildTarget, bundleSources, ensureFresh } from "./fresh.ts";

// Fixed mtimes (seconds since the epoch): the check compares them with one another, never with now.
const SOURCES_AT = 2_000_000;
const OLDER = 1_000_000;
const NEWER = 3_000_000;

let dir: string;
let builds: number;
let target: BuildTarget;
const lockDir = () => join(dir, "lock");
const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);
const write = (path: string, text: string, seconds = SOURCES_AT) => {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  at(path, seconds);
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "kurz-fresh-"));
  builds = 0;
  write(join(dir, "src/main.ts"), "export const a = 1;\n");
  write(join(dir, "src/nested/rows.sql"), "select 1;\n");
  write(join(dir, "lockfile.yaml"), "lock: 1\n");
  const output = join(dir, "out/main.mjs");
  target = {
    name: "main",
    outputs: [output],
    sources: { dirs: [join(dir, "src")], files: [join(dir, "lockfile.yaml")] },
    // A real, if small, build: the output is the sources it was made from.
    build: async () => {
      builds++;
      write(output, readFileSync(join(dir, "src/main.ts"), "utf8"), NEWER);
    },
  };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("ensureFresh", () => {
  it("builds a missing output, then leaves it while no source is newer", async () => {
    expect(await ensureFresh([target], { lockDir: lockDir() })).toEqual(["main"]);
    expect(readFileSync(target.outputs[0]!, "utf8")).toBe("export const a = 1;\n");
    expect(await ensureFresh([target], { lockDir: lockDir() })).toEqual([]);
    expect(builds).toBe(1);
  });

  it("rebuilds an output older than a source, whether in a nested directory or a single file", async () => {
    await ensureFresh([target], { lockDir: lockDir() });
    write(join(dir, "src/main.ts"), "export const a = 2;\n");
    at(target.outputs[0]!, OLDER);
    const said: string[][] = [];
    expect(await ensureFresh([target], { lockDir: lockDir(), onBuild: (n) => said.push(n) })).toEqual([
      "main",
    ]);
    expect(said).toEqual([["main"]]);
    expect(readFileSync(target.outputs[0]!, "utf8")).toBe("export const a = 2;\n");

    for (const [i, source] of ["src/nested/rows.sql", "lockfile.yaml"].entries()) {
      at(target.outputs[0]!, NEWER + 10 * i);
      expect(await ensureFresh([target], { lockDir: lockDir() }), source).toEqual([]);
      at(join(dir, source), NEWER + 10 * i + 1);
      expect(await ensureFresh([target], { lockDir: lockDir() }), source).toEqual(["main"]);
    }
    expect(builds).toBe(4);
  });

  it("counts no test, dependency or earlier build as a source, nor a file of another kind", async () => {
    await ensureFresh([target], { lockDir: lockDir() });
    at(target.outputs[0]!, NEWER);
    for (const path of [
      "src/test/x.test.ts",
      "src/node_modules/dep/index.js",
      "src/dist/old.mjs",
      "src/notes.md",
    ])
      write(join(dir, path), "changed\n", NEWER + 1);
    expect(await ensureFresh([target], { lockDir: lockDir() })).toEqual([]);
    expect(builds).toBe(1);
  });

  it("rebuilds when any one of a target's outputs is missing or stale, and only the stale targets", async () => {
    const second = join(dir, "out/cli.mjs");
    const other: BuildTarget = {
      ...target,
      name: "other",
      outputs: [join(dir, "out/other.mjs")],
      build: async () => write(join(dir, "out/other.mjs"), "", NEWER),
    };
    target.outputs.push(second);
    const build = target.build;
    target.build = async () => {
      await build();
      write(second, "", NEWER);
    };
    expect((await ensureFresh([target, other], { lockDir: lockDir() })).sort()).toEqual(["main", "other"]);
    at(second, OLDER);
    expect(await ensureFresh([target, other], { lockDir: lockDir() })).toEqual(["main"]);
    rmSync(second);
    expect(await ensureFresh([target, other], { lockDir: lockDir() })).toEqual(["main"]);
    expect(builds).toBe(3);
  });

  it("builds once when several callers find the same output stale at the same time", async () => {
    const calls = await Promise.all([1, 2, 3].map(() => ensureFresh([target], { lockDir: lockDir() })));
    expect(calls.flat()).toEqual(["main"]);
    expect(builds).toBe(1);
  });
});

it("checks each of management's bundles, the CLI's among them, against management's and the packages' sources", () => {
  const root = join(import.meta.dirname, "../..");
  expect(bundleOutputs("management").map((p) => relative(root, p))).toEqual([
    "services/management/dist/main.mjs",
    "services/management/dist/memory-bounds.mjs",
    "services/management/dist/cli.mjs",
    "services/management/dist/migrate.mjs",
    "services/management/dist/import-file-thread.mjs",
  ]);
  const { dirs, files } = bundleSources("management");
  expect([...dirs, ...files].map((p) => relative(root, p))).toEqual([
    "services/management",
    "packages",
    "infra/build/bundle.ts",
    "infra/build/memory-bounds.ts",
    "infra/build/memory.ts",
    "infra/build/node-flags.ts",
    "pnpm-lock.yaml",
  ]);
});
