import { configDefaults, defineProject } from "vitest/config";
import { STACK_SETUP_FILES } from "../../vitest.stack.ts";
import { unitFilesOf } from "../../vitest.unit.ts";

// The dashboard's browser tests: real Chromium (Debian's, driven by playwright-core) against a whole
// stack (in-process) through its public origin. Slow by nature, so generous timeouts.
export default defineProject({
  test: {
    name: "@kurz/web",
    setupFiles: STACK_SETUP_FILES,
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts"],
    // One file, chromium.test.ts, starts the stack and Chromium for every story (test/stories); a file
    // beside it would start its own and, in-process, must not share a worker with it: one at a time.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
