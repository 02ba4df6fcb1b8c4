import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { dropDatabase, migrateDatabase } from "../src/index.ts";
import { uniqueDatabaseUrl, withSchemaEngine } from "./databases.ts";

const NO_OP_ENGINE = fileURLToPath(new URL("fixtures/no-op-schema-engine.mjs", import.meta.url));
const databaseUrl = uniqueDatabaseUrl("verify");

afterAll(async () => {
  await dropDatabase(databaseUrl);
});

describe("migrateDatabase when the schema engine applies nothing", () => {
  it("rejects although the Prisma CLI reports success", async () => {
    const error = await withSchemaEngine(NO_OP_ENGINE, () => migrateDatabase(databaseUrl)).then(
      () => undefined,
      (rejection: unknown) => rejection,
    );

    expect(error).toBeInstanceOf(Error);
    const { message } = error as Error;
    expect(message).toMatch(/exited 0 but these migrations are not applied: \d+_baseline/);
    // The premise: the CLI itself saw nothing wrong. The message carries its exit code (above) and
    // its output.
    expect(message).toMatch(/No pending migrations to apply/);
  });
});
