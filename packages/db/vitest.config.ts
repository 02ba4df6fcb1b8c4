import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@kurz/db",
    include: ["test/**/*.test.ts"],
    // The generated client is gitignored; every run regenerates it from the schema.
    globalSetup: ["test/generate-client.ts"],
    // Each migrate spawns the Prisma CLI and the WASM schema engine (about 1-3 s on two cores).
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
