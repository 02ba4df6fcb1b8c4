import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { dropDatabase, migrateDatabase } from "../src/index.ts";
import { runPrismaCli } from "../src/prisma-cli.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

const NO_OP_ENGINE = fileURLToPath(new URL("fixtures/no-op-schema-engine.mjs", import.meta.url));
const databaseUrl = uniqueDatabaseUrl("verify");

afterAll(async () => {
  await dropDatabase(databaseUrl);
});

// This file's worker owns its process.env; the variable is restored before any other test runs.
async function withSchemaEngine<T>(binary: string, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
  process.env.PRISMA_SCHEMA_ENGINE_BINARY = binary;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.PRISMA_SCHEMA_ENGINE_BINARY;
    else process.env.PRISMA_SCHEMA_ENGINE_BINARY = previous;
  }
}

describe("migrateDatabase when the schema engine applies nothing", () => {
  it("rejects although the Prisma CLI reports success", async () => {
    const cli = await withSchemaEngine(NO_OP_ENGINE, () => runPrismaCli(["migrate", "deploy"], databaseUrl));
    // The premise: the CLI itself sees nothing wrong.
    expect(cli.code).toBe(0);
    expect(cli.output).toMatch(/No pending migrations to apply/);

    await expect(withSchemaEngine(NO_OP_ENGINE, () => migrateDatabase(databaseUrl))).rejects.toThrow(
      /exited 0 but these migrations are not applied: \d+_init/,
    );
  });
});
