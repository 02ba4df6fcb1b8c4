// The setup files that give @kurz/testing the services' own code for startStack: each service
// registers its in-process start function (and management its account creator) from its test folder,
// since packages may not import services (biome.json). Every vitest project whose tests start a stack
// lists these in `setupFiles` (stackProject does); a script that starts one imports them itself
// (infra/bench).
import { resolve } from "node:path";
import { configDefaults, defineProject, type UserWorkspaceConfig } from "vitest/config";
import { unitFilesOf } from "./vitest.unit.ts";

export const STACK_SETUP_FILES = ["analytics", "gateway", "management", "redirect"].map((name) =>
  resolve(import.meta.dirname, "services", name, "test", "register-stack.ts"),
);

/**
 * KURZ_TEST_CPU_PROFILE_DIR=<dir> writes a V8 CPU profile of each stack test file's worker time there
 * (packages/testing/src/cpu-profile-setup.ts).
 */
const PROFILE_SETUP_FILES = process.env.KURZ_TEST_CPU_PROFILE_DIR
  ? [resolve(import.meta.dirname, "packages", "testing", "src", "cpu-profile-setup.ts")]
  : [];

/**
 * The vitest project of a folder whose test files start stacks (a service's tests, the attack and
 * end-to-end suites) in the directory `dir`: `name`, then whatever `test` adds or overrides.
 */
export function stackProject(
  dir: string,
  name: string,
  test: NonNullable<UserWorkspaceConfig["test"]> = {},
): UserWorkspaceConfig {
  return defineProject({
    test: {
      name,
      setupFiles: [...STACK_SETUP_FILES, ...PROFILE_SETUP_FILES],
      // Run by the root's "unit" project in a whole run (vitest.unit.ts).
      exclude: [...configDefaults.exclude, ...unitFilesOf(dir)],
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // A worker runs its files one after another in one module graph (no fresh fork and import per
      // file): each file starts and stops its own in-process stack (its own database, Redis prefix and
      // chDB session), so a fresh fork would add only a second import of the four services, ~2-3 s of
      // CPU a file (management alone: 150 -> 83 s of CPU without it; decision 0011). A file that leaves
      // a stack running disturbs the files after it in its worker: stop stacks in afterAll.
      isolate: false,
      // chDB is one engine per process: worker threads would share it, child processes do not.
      pool: "forks",
      ...test,
    },
  });
}

/**
 * The folders whose vitest.config.ts is a plain stackProject (its name and files, nothing else). A run
 * from the root gives them one project, "stack", rather than one each: vitest transforms a module once
 * per project and hands a worker its next file only within the worker's project (it forks and imports
 * afresh otherwise), so a project each would transform and import the four services six times over.
 */
export const STACK_DIRS = [
  "services/analytics",
  "services/gateway",
  "services/management",
  "services/redirect",
  "packages/cli",
  "packages/sdk",
  "tests/e2e",
  "tests/security",
];

/** The root's one project for the STACK_DIRS a run selected (none: no project). */
export function sharedStackProject(dirs: string[]): UserWorkspaceConfig[] {
  if (dirs.length === 0) return [];
  return [
    stackProject(import.meta.dirname, "stack", {
      include: dirs.map((dir) => `${dir}/**/*.test.ts`),
    }),
  ];
}
