import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/clickhouse",
    // chDB binds one engine per process: worker threads would share it, child processes do not.
    pool: "forks",
    testTimeout: 30_000,
  },
});
