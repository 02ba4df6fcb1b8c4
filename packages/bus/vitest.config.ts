import { configDefaults, defineProject } from "vitest/config";
import { unitFilesOf } from "../../vitest.unit.ts";

export default defineProject({
  test: {
    name: "@kurz/bus",
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Kafka consumer-group joins take seconds on the mock broker.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The conformance cases run at once (describe.concurrent) and mostly wait on group joins: all of
    // them together, not vitest's default of 5 at a time.
    maxConcurrency: 16,
    // Files share a worker's module graph, as in stackProject (vitest.stack.ts: why, and what
    // it asks of a file): decision 0011.
    isolate: false,
  },
});
