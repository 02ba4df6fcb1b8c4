import { existsSync, readdirSync, rmSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { useMemoryTmpdir } from "./packages/testing/src/memory-tmpdir.ts";
import LongestFirstSequencer from "./packages/testing/src/sequencer.ts";
import { STACK_DIRS, sharedStackProject } from "./vitest.stack.ts";
import { unitFilesSelected } from "./vitest.unit.ts";

// infra/local/test.sh splits a whole run over several vitest processes with KURZ_VITEST_PROJECTS
// (comma-separated globs; `!dir` leaves a project out).
const projects = process.env.KURZ_VITEST_PROJECTS?.split(",") ?? [
  "packages/*",
  "services/*",
  "infra",
  "tests/*",
];
const unit = unitFilesSelected(projects);
// The selected folders that have a vitest.config.ts; the plain stack projects among them run as one
// (vitest.stack.ts, STACK_DIRS: why).
const expand = (glob: string) =>
  glob.endsWith("/*") ? readdirSync(glob.slice(0, -2)).map((name) => `${glob.slice(0, -1)}${name}`) : [glob];
const left = new Set(projects.filter((p) => p.startsWith("!")).map((p) => p.slice(1)));
const dirs = projects
  .filter((p) => !p.startsWith("!"))
  .flatMap(expand)
  .filter((dir) => !left.has(dir) && existsSync(`${dir}/vitest.config.ts`));
const stackDirs = dirs.filter((dir) => STACK_DIRS.includes(dir));
const ownDirs = dirs.filter((dir) => !STACK_DIRS.includes(dir));
// Scratch files (chDB data directories, spools, browser profiles) on /dev/shm, before any worker or
// service process starts and inherits TMPDIR: packages/testing/src/memory-tmpdir.ts says why.
const scratch = useMemoryTmpdir();
if (scratch) process.once("exit", () => rmSync(scratch, { recursive: true, force: true }));

// One run over every workspace package; each package may add its own vitest.config.ts.
export default defineConfig({
  // Where vitest keeps its results cache (the durations the sequencer orders by): infra/local/test.sh
  // gives its second vitest (the one-file-at-a-time projects) a cache of its own.
  ...(process.env.KURZ_VITEST_CACHE_DIR ? { cacheDir: process.env.KURZ_VITEST_CACHE_DIR } : {}),
  test: {
    projects: [
      ...ownDirs,
      ...sharedStackProject(stackDirs),
      // The files that only import and call code (`*.unit.test.ts`), in one project without a fresh
      // worker per file (vitest.unit.ts says which and why); their own projects leave them out.
      { test: { name: "unit", ...unit, isolate: false, testTimeout: 30_000, hookTimeout: 30_000 } },
    ],
    // Vitest's default (cores - 1) is one worker on a 2-core machine; test files mostly wait on
    // Postgres, Redis and timers, so one more file than cores keeps both busy (a whole run in
    // minutes). `--maxWorkers=1` still runs them one at a time.
    maxWorkers: "150%",
    // Longest files first across all projects (packages/testing/src/sequencer.ts): on two cores the
    // process-stack suites then do not start last and run on alone.
    sequence: { sequencer: LongestFirstSequencer },
    // Off unless asked (`./kurz test --coverage`, or `vitest run --coverage`): instrumenting costs time.
    // Only code that runs inside the test workers is counted, so services booted as child processes
    // (the process stack) count as uncovered: docs/decisions/0011-in-process-test-stack.md.
    coverage: {
      provider: "v8",
      include: ["packages/*/src/**/*.ts", "services/*/src/**/*.ts"],
      exclude: ["**/*.test.ts", "packages/db/src/generated/**"],
      reporter: ["text-summary", "json-summary"],
      reportsDirectory: ".data/coverage",
      // A flaky failure must not cost the whole report (vitest writes none on failure by default).
      reportOnFailure: true,
    },
  },
});
