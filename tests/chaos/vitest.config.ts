import { configDefaults, defineProject } from "vitest/config";
import { STACK_SETUP_FILES } from "../../vitest.stack.ts";
import { unitFilesOf } from "../../vitest.unit.ts";

export default defineProject({
  test: {
    name: "chaos",
    setupFiles: STACK_SETUP_FILES,
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // Each file runs a whole scaled stack: two at once on two cores would measure each other.
    fileParallelism: false,
  },
});
