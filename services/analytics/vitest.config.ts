import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/analytics",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // chDB is one engine per process: worker threads would share it.
    pool: "forks",
  },
});
