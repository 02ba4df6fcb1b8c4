import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "chaos",
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
