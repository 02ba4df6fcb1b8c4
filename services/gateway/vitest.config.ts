import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/gateway",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
