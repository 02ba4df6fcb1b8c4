import { configDefaults, defineProject } from "vitest/config";
import { unitFilesOf } from "../../vitest.unit.ts";

export default defineProject({
  test: {
    name: "@kurz/db",
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts"],
    // The generated client is gitignored; every run regenerates it from the schema.
    globalSetup: ["test/generate-client.ts"],
    // Each migrate spawns the Prisma CLI and the WASM schema engine (about 1-3 s on two cores).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Files share a worker's module graph, as in stackProject (vitest.stack.ts: why, and what
    // it asks of a file): decision 0011.
    isolate: false,
  },
});
