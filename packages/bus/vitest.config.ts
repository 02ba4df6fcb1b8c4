import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/bus",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Kafka consumer-group joins take seconds on the mock broker.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
