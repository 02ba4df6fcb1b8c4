import { configDefaults, defineProject } from "vitest/config";
import { STACK_SETUP_FILES } from "../../vitest.stack.ts";
import { unitFilesOf } from "../../vitest.unit.ts";

export default defineProject({
  test: {
    name: "@kurz/management",
    setupFiles: STACK_SETUP_FILES,
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A worker runs its files one after another in one module graph (no fresh fork and import per file):
    // each file starts and stops its own in-process stack (its own database, Redis prefix and chDB
    // session), so a fresh fork would add only a second import of the four services, ~2-3 s of CPU a
    // file (management alone: 150 -> 83 s of CPU without it; decision 0011). A file that leaves a stack
    // running disturbs the files after it in its worker: stop stacks in afterAll.
    isolate: false,
  },
});
