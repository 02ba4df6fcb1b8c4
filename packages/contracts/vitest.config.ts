import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/contracts",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
  },
});
