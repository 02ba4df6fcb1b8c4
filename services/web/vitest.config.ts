import { configDefaults, defineProject } from "vitest/config";
import { STACK_SETUP_FILES } from "../../vitest.stack.ts";
import { unitFilesOf } from "../../vitest.unit.ts";

// The dashboard's browser tests: real Chromium (Debian's, driven by playwright-core) against a whole
// process stack through its public origin. Slow by nature, so generous timeouts.
export default defineProject({
  test: {
    name: "@kurz/web",
    setupFiles: STACK_SETUP_FILES,
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts"],
    // One file at a time: each boots a whole stack and Chromium, and each builds services/web/dist.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
