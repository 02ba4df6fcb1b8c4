// The unit tier: test files named `*.unit.test.ts`. Such a file only imports code and calls it: no
// stack, database, Redis, child process, chDB or process-wide registration (OpenTelemetry), no vi.mock
// or stubbed globals (packages/testing/test/unit-tier.unit.test.ts checks every one). A whole run gives
// them one project, "unit", with `isolate: false`: a worker runs file after file in one module graph
// instead of a fresh fork and a fresh import of vitest and the workspace per file (~0.5 s of CPU a
// file; decision 0011). Their own projects leave them out only when vitest runs from the root
// (unitFilesOf), so `vitest run` inside a package still runs all of its files.
import { resolve } from "node:path";
import { configDefaults } from "vitest/config";

/** What names a unit test file, anywhere in the workspace. */
export const UNIT_TEST_GLOB = "**/*.unit.test.ts";

const root = import.meta.dirname;

/**
 * What a project (its vitest.config.ts's directory) excludes because the root's "unit" project runs it:
 * its unit files when vitest runs from the root, nothing when it runs from the package's own directory
 * (`pnpm --filter <pkg> test`), which has no "unit" project.
 */
export function unitFilesOf(_dir: string): string[] {
  return resolve(process.cwd()) === root ? [UNIT_TEST_GLOB] : [];
}

/**
 * The "unit" project's files for the projects a run selected (KURZ_VITEST_PROJECTS-style globs:
 * `packages/*`, `infra`, `!services/web`), so that a vitest of services/web alone does not run them too.
 */
export function unitFilesSelected(projects: string[]): { include: string[]; exclude: string[] } {
  return {
    include: projects.filter((p) => !p.startsWith("!")).map((p) => `${p}/${UNIT_TEST_GLOB}`),
    exclude: [
      ...configDefaults.exclude,
      ...projects.filter((p) => p.startsWith("!")).map((p) => `${p.slice(1)}/**`),
    ],
  };
}
