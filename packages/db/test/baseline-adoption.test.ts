// Databases migrated before the baseline migration: one that ran the whole chain the baseline replaced
// is adopted (the baseline recorded, nothing run, the definitions applied) and ends with the schema of
// a database migrated from nothing, once the migrations after the baseline have run on it; one that
// ran part of it is refused. The old chain is no longer in the tree, so such a database is made from
// one migrated through the baseline: its migrations table rewritten to the old chain's names and its
// definitions' bookkeeping taken away, as the old chain left them.
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../testing/src/database.ts";
import { filesKey } from "../../testing/src/files-key.ts";
import { createMigratedDatabase } from "../../testing/src/migrated-database.ts";
import { BASELINE_MIGRATION, PRE_BASELINE_MIGRATIONS } from "../src/baseline-adoption.ts";
import { MIGRATIONS_DIR, migrateDatabase } from "../src/index.ts";
import { runPrismaCli } from "../src/prisma-cli.ts";
import { SQL_DEFINITIONS_TABLE } from "../src/sql-definitions.ts";
import { withSchemaEngine } from "./databases.ts";
import { schemaCatalog } from "./schema-catalog.ts";

// Migrated databases are copies of the suite's template (packages/testing): migrated from nothing by
// migrateDatabase, once per set of migrations and definitions, where migrating each here would be a
// Prisma CLI run apiece.
const created: TestDatabase[] = [];
async function migratedUrl(label: string): Promise<string> {
  const database = await createMigratedDatabase(`kurz_db_${label}`);
  created.push(database);
  return database.url;
}

/**
 * A database with the baseline's schema, none of the migrations after it: what the old chain left. A
 * copy of a template migrated through the baseline once per content of the baseline migration.
 */
async function baselineUrl(label: string): Promise<string> {
  const database = await createTestDatabase(`kurz_db_${label}`, {
    migrate: (url) => migrateDatabase(url, { through: BASELINE_MIGRATION }),
    template: `baseline_${filesKey(join(MIGRATIONS_DIR, BASELINE_MIGRATION))}`,
  });
  created.push(database);
  return database.url;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Makes a migrated database look as the first `ran` migrations of the old chain left it. */
async function asBeforeTheBaseline(url: string, ran: number): Promise<void> {
  await withClient(url, async (client) => {
    await client.query("DELETE FROM _prisma_migrations");
    for (const name of PRE_BASELINE_MIGRATIONS.slice(0, ran)) {
      await client.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES (gen_random_uuid()::text, md5($1) || md5($1), $1, now(), now(), 1)`,
        [name],
      );
    }
    await client.query(`DROP TABLE IF EXISTS ${SQL_DEFINITIONS_TABLE}`);
    // A function body as an earlier chain might have left it: adoption applies every definition anyway.
    await client.query(
      "CREATE OR REPLACE FUNCTION kurz_new_record_version() RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint'",
    );
  });
}

const migrationNames = (url: string) =>
  withClient(url, async (client) =>
    (
      await client.query<{ migration_name: string }>(
        "SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name",
      )
    ).rows.map((row) => row.migration_name),
  );

/** The migrations in the tree: the baseline and those after it. */
const migrationsInTree = () =>
  readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

// A schema engine that cannot start: a migrateDatabase that succeeds with it never ran the Prisma CLI.
const MISSING_ENGINE = join(tmpdir(), "kurz-no-such-schema-engine");

let fresh: string;

beforeAll(async () => {
  fresh = await migratedUrl("fresh");
});

afterAll(async () => {
  await Promise.all(created.map((database) => database.drop()));
});

describe("a database that ran every migration the baseline replaced", () => {
  it("is adopted without running a migration, and ends with a fresh database's schema", async () => {
    const url = await baselineUrl("adopted");
    await asBeforeTheBaseline(url, PRE_BASELINE_MIGRATIONS.length);

    await withSchemaEngine(MISSING_ENGINE, () => migrateDatabase(url, { through: BASELINE_MIGRATION }));
    expect(await migrationNames(url)).toEqual([...PRE_BASELINE_MIGRATIONS, BASELINE_MIGRATION].sort());

    // The migrations after the baseline then run on it as on any database that has the baseline.
    await migrateDatabase(url);
    expect(await migrationNames(url)).toEqual([...PRE_BASELINE_MIGRATIONS, ...migrationsInTree()].sort());
    const [adopted, expected] = await Promise.all([
      withClient(url, schemaCatalog),
      withClient(fresh, schemaCatalog),
    ]);
    expect(adopted).toEqual(expected);
    // Prisma itself takes the recorded baseline for its own (its checksum included).
    const { code, output } = await runPrismaCli(["migrate", "deploy"], url);
    expect(code, output).toBe(0);
    expect(output).toMatch(/No pending migrations to apply/);
  });
});

describe("a database that ran part of the chain the baseline replaced", () => {
  it("is refused with what to do, and left as it was", async () => {
    const url = await migratedUrl("partial");
    await asBeforeTheBaseline(url, 10);

    await expect(withSchemaEngine(MISSING_ENGINE, () => migrateDatabase(url))).rejects.toThrow(
      new RegExp(
        `ran 10 of the ${PRE_BASELINE_MIGRATIONS.length} migrations that ${BASELINE_MIGRATION} replaced ` +
          `\\(missing: ${PRE_BASELINE_MIGRATIONS[10]} and ${PRE_BASELINE_MIGRATIONS.length - 11} more\\).*` +
          "check out the parent of the commit that added .*git log --diff-filter=A",
        "s",
      ),
    );

    expect(await migrationNames(url)).toEqual(PRE_BASELINE_MIGRATIONS.slice(0, 10));
  });
});
