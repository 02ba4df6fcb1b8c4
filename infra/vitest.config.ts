import { configDefaults, defineProject } from "vitest/config";
import { unitFilesOf } from "../vitest.unit.ts";

export default defineProject({
  test: {
    name: "@kurz/infra",
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["*.test.ts", "bench/*.test.ts", "local/*.test.ts", "observability/*.test.ts"],
    // Files share a worker's module graph, as in stackProject (vitest.stack.ts: why, and what
    // it asks of a file): decision 0011.
    isolate: false,
  },
});
