import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/infra",
    include: ["*.test.ts", "local/*.test.ts"],
    // Files share a worker's module graph, as in services/management/vitest.config.ts (why, and what
    // it asks of a file): decision 0011.
    isolate: false,
  },
});
