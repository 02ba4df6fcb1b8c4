import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { dropDatabase, migrateDatabase } from "../src/index.ts";
import { runPrismaCli } from "../src/prisma-cli.ts";
import { uniqueDatabaseUrl, withSchemaEngine } from "./databases.ts";

const NO_OP_ENGINE = fileURLToPath(new URL("fixtures/no-op-schema-engine.mjs", import.meta.url));
const databaseUrl = uniqueDatabaseUrl("verify");

afterAll(async () => {
  await dropDatabase(databaseUrl);
});

describe("migrateDatabase when the schema engine applies nothing", () => {
  it("rejects although the Prisma CLI reports success", async () => {
    const cli = await withSchemaEngine(NO_OP_ENGINE, () => runPrismaCli(["migrate", "deploy"], databaseUrl));
    // The premise: the CLI itself sees nothing wrong.
    expect(cli.code).toBe(0);
    expect(cli.output).toMatch(/No pending migrations to apply/);

    await expect(withSchemaEngine(NO_OP_ENGINE, () => migrateDatabase(databaseUrl))).rejects.toThrow(
      /exited 0 but these migrations are not applied: \d+_baseline/,
    );
  });
});
