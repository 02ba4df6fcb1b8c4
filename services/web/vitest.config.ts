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
    // One file at a time: chromium.test.ts starts the stack and Chromium for every story (test/stories),
    // and a second file would start its own beside it.
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // A page that re-renders after a fetch may take seconds under the load of a whole run: polls wait as
    // long as a Playwright step does (browser.ts's 15 s), not vitest's default second.
    expect: { poll: { timeout: 15_000 } },
  },
});
