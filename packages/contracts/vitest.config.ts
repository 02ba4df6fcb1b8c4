import { configDefaults, defineProject } from "vitest/config";
import { unitFilesOf } from "../../vitest.unit.ts";

export default defineProject({
  test: {
    name: "@kurz/contracts",
    // Run by the root's "unit" project in a whole run (vitest.unit.ts).
    exclude: [...configDefaults.exclude, ...unitFilesOf(import.meta.dirname)],
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
  },
});
