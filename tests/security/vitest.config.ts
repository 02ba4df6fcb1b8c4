import { configDefaults, defineProject } from "vitest/config";
import { STACK_SETUP_FILES } from "../../vitest.stack.ts";
import { unitFilesOf } from "../../vitest.unit.ts";

// The attack suite (docs/security.md): each file boots its own stack and attacks it through the public
// origin, as a client with an ordinary API key would.
export default defineProject({
  test: {
    name: "security",
    setupFiles: STACK_SETUP_FILES,
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Files share a worker's module graph, as in services/management/vitest.config.ts (why, and what
    // it asks of a file): decision 0011.
    isolate: false,
  },
});
