import { defineProject } from "vitest/config";

// The dashboard's browser tests: real Chromium (Debian's, driven by playwright-core) against a whole
// process stack through its public origin. Slow by nature, so generous timeouts.
export default defineProject({
  test: {
    name: "@kurz/web",
    include: ["test/**/*.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
