import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "@kurz/redirect", testTimeout: 60_000, hookTimeout: 120_000 },
});
