import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "../engine/schema-engine-env.mjs";
import { dropDatabase, ensureDatabase, MIGRATIONS_DIR } from "../src/index.ts";
import { runPrismaCli } from "../src/prisma-cli.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

const SCHEMA = join(PACKAGE_DIR, "prisma", "schema.prisma");
// `migrate diff --exit-code`: 0 = no difference, 2 = difference, 1 = error.
const DRIFT = 2;

// Replaying the migrations needs a shadow database; the engine creates a temporary one through this
// connection, so it only has to exist.
const databaseUrl = uniqueDatabaseUrl("drift");
let tempDir = "";

beforeAll(async () => {
  await ensureDatabase(databaseUrl);
  tempDir = await mkdtemp(join(tmpdir(), "kurz-db-drift-"));
});

afterAll(async () => {
  await dropDatabase(databaseUrl);
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

function diffMigrationsAgainst(schemaPath: string) {
  return runPrismaCli(
    [
      "migrate",
      "diff",
      "--from-migrations",
      MIGRATIONS_DIR,
      "--to-schema",
      schemaPath,
      "--exit-code",
      "--script",
    ],
    databaseUrl,
  );
}

describe("schema.prisma and prisma/migrations", () => {
  it("describe the same database (run `pnpm --filter @kurz/db migrate:new <name>` if this fails)", async () => {
    const { code, output } = await diffMigrationsAgainst(SCHEMA);

    expect(output).not.toMatch(/ALTER|CREATE|DROP/);
    expect(code, output).toBe(0);
  });

  it("are reported as drifted when the schema gains a column the migrations lack", async () => {
    const schema = await readFile(SCHEMA, "utf8");
    const modified = schema.replace(/(\n\s*username\s+String\?)/, "$1\n  nickname String?");
    expect(modified).not.toBe(schema);
    const modifiedPath = join(tempDir, "schema.prisma");
    await writeFile(modifiedPath, modified);

    const { code, output } = await diffMigrationsAgainst(modifiedPath);

    expect(code, output).toBe(DRIFT);
    expect(output).toMatch(/ALTER TABLE "accounts" ADD COLUMN\s+"nickname" TEXT/);
  });
});
