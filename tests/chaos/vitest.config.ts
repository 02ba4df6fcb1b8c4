import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "chaos",
    testTimeout: 60_000,
    hookTimeout: 240_000,
    // Each file runs a whole scaled stack: two at once on two cores would measure each other.
    fileParallelism: false,
  },
});
