import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/infra",
    include: ["*.test.ts", "local/*.test.ts"],
  },
});
