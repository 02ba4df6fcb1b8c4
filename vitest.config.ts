import { defineConfig } from "vitest/config";

// One run over every workspace package; each package may add its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ["packages/*", "services/*", "infra", "tests/*"],
  },
});
