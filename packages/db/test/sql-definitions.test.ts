// The definition files under sql/ are the current functions and triggers: a database migrated from
// nothing has exactly the objects the files create. Postgres compares them in its own words
// (pg_get_functiondef, pg_get_triggerdef), so the files' comments and layout outside a body are free.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dropDatabase, migrateDatabase } from "../src/index.ts";
import {
  readSqlDefinitions,
  type SqlDefinition,
  writeMigrationFromDefinitions,
} from "../src/sql-definitions.ts";
import { uniqueDatabaseUrl } from "./databases.ts";

/** `name(identity arguments)` or `trigger name on table` → Postgres's own text of the object. */
type Catalog = Record<string, string>;

// The public schema's functions (not an extension's, such as pg_trgm's) and the triggers people wrote
// (not the internal ones behind foreign keys).
const OWN_FUNCTIONS = `
  SELECT p.oid, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS key
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public'
    AND NOT EXISTS (SELECT 1 FROM pg_depend d
                    WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`;
const OWN_TRIGGERS = `
  SELECT t.oid, t.tgname, c.relname, 'trigger ' || t.tgname || ' on ' || c.relname AS key
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND NOT t.tgisinternal`;

async function catalog(client: pg.Client): Promise<Catalog> {
  const { rows } = await client.query<{ key: string; def: string }>(`
    SELECT key, pg_get_functiondef(oid) AS def FROM (${OWN_FUNCTIONS}) f
    UNION ALL
    SELECT key, pg_get_triggerdef(oid) AS def FROM (${OWN_TRIGGERS}) t
    ORDER BY key`);
  return Object.fromEntries(rows.map((row) => [row.key, row.def]));
}

/**
 * The catalog the definitions alone make: in a transaction rolled back afterwards, every function and
 * trigger of the migrated database is dropped (with what depends on a function, such as a column
 * default, which is not compared) and the definitions are applied in its place.
 */
async function catalogFromDefinitions(client: pg.Client, definitions: SqlDefinition[]): Promise<Catalog> {
  await client.query("BEGIN");
  try {
    const triggers = await client.query<{ tgname: string; relname: string }>(OWN_TRIGGERS);
    for (const { tgname, relname } of triggers.rows) {
      await client.query(`DROP TRIGGER ${pg.escapeIdentifier(tgname)} ON ${pg.escapeIdentifier(relname)}`);
    }
    const functions = await client.query<{ oid: number }>(OWN_FUNCTIONS);
    for (const { oid } of functions.rows) {
      const { rows } = await client.query<{ signature: string }>(
        "SELECT $1::regprocedure::text AS signature",
        [oid],
      );
      await client.query(`DROP FUNCTION IF EXISTS ${rows[0]!.signature} CASCADE`);
    }
    for (const definition of definitions) await client.query(definition.sql);
    return await catalog(client);
  } finally {
    await client.query("ROLLBACK");
  }
}

const databaseUrl = uniqueDatabaseUrl("definitions");
const client = new pg.Client({ connectionString: databaseUrl });
let tempDir = "";
let migrated: Catalog = {};

beforeAll(async () => {
  await migrateDatabase(databaseUrl);
  await client.connect();
  migrated = await catalog(client);
  tempDir = await mkdtemp(join(tmpdir(), "kurz-db-definitions-"));
});

afterAll(async () => {
  await client.end().catch(() => {});
  await dropDatabase(databaseUrl);
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

describe("sql/ definitions and prisma/migrations", () => {
  it("make the same functions and triggers (edit the definition file, then run migration:from-definitions)", async () => {
    const definitions = await readSqlDefinitions();

    const fromDefinitions = await catalogFromDefinitions(client, definitions);

    expect(Object.keys(migrated).length).toBeGreaterThan(0);
    expect(fromDefinitions).toEqual(migrated);
  });

  it("are told apart when a body changes or a definition is missing", async () => {
    const definitions = await readSqlDefinitions();
    const changed = definitions.find((definition) => definition.name === "kurz_count_links")!;
    const missing = definitions.find((definition) => definition.kind === "triggers")!;
    const edited = definitions
      .filter((definition) => definition !== missing)
      .map((definition) =>
        definition === changed
          ? { ...definition, sql: definition.sql.replace("BEGIN", "BEGIN\n  -- edited") }
          : definition,
      );

    const fromDefinitions = await catalogFromDefinitions(client, edited);

    const differing = Object.keys(migrated).filter((key) => fromDefinitions[key] !== migrated[key]);
    expect(differing).toEqual([
      expect.stringMatching(/^kurz_count_links\(/),
      expect.stringMatching(new RegExp(`^trigger ${missing.name} on `)),
    ]);
    // The rollback left the migrated database as it was.
    expect(await catalog(client)).toEqual(migrated);
  });
});

describe("writeMigrationFromDefinitions", () => {
  it("writes a timestamped migration that leaves a migrated database's functions and triggers as they are", async () => {
    const migrationsDir = join(tempDir, "migrations");
    await mkdir(migrationsDir);

    const file = await writeMigrationFromDefinitions({
      names: ["kurz_count_links", "link_limit_lowered"],
      migrationName: "count_links_and_limit",
      now: new Date("2030-01-02T03:04:05.678Z"),
      migrationsDir,
    });

    expect(file).toBe(join(migrationsDir, "20300102030405_count_links_and_limit", "migration.sql"));
    const sql = await readFile(file, "utf8");
    expect(sql).toMatch(
      /^-- From packages\/db\/sql\/functions\/kurz_count_links\.sql, the current definition\.\n/,
    );
    expect(sql).toContain("CREATE OR REPLACE FUNCTION kurz_count_links(");
    expect(sql).toContain("CREATE OR REPLACE TRIGGER link_limit_lowered ");
    await client.query("BEGIN");
    try {
      await client.query(sql);
      expect(await catalog(client)).toEqual(migrated);
    } finally {
      await client.query("ROLLBACK");
    }
  });

  it("names a single definition's migration after it, and refuses unknown names and unnamed batches", async () => {
    const migrationsDir = join(tempDir, "named");
    await mkdir(migrationsDir);
    const now = new Date("2030-01-02T03:04:05Z");

    const file = await writeMigrationFromDefinitions({ names: ["kurz_recount_links"], now, migrationsDir });

    expect(file).toBe(join(migrationsDir, "20300102030405_kurz_recount_links", "migration.sql"));
    await expect(writeMigrationFromDefinitions({ names: ["kurz_nope"], now, migrationsDir })).rejects.toThrow(
      /no definition named kurz_nope; there are: .*kurz_count_links/,
    );
    await expect(
      writeMigrationFromDefinitions({
        names: ["kurz_count_links", "kurz_uncount_links"],
        now,
        migrationsDir,
      }),
    ).rejects.toThrow(/--name/);
  });
});

describe("readSqlDefinitions", () => {
  it("refuses a file that does not CREATE OR REPLACE the object it is named for", async () => {
    const plainCreate = join(tempDir, "plain", "functions");
    await mkdir(plainCreate, { recursive: true });
    await writeFile(
      join(plainCreate, "kurz_a.sql"),
      "-- why\nCREATE FUNCTION kurz_a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
    );
    const otherName = join(tempDir, "other", "triggers");
    await mkdir(otherName, { recursive: true });
    await writeFile(
      join(otherName, "a_trigger.sql"),
      "CREATE OR REPLACE TRIGGER b_trigger AFTER UPDATE ON t\n",
    );

    await expect(readSqlDefinitions(join(tempDir, "plain"))).rejects.toThrow(
      /kurz_a\.sql must start \(after its comments\) with CREATE OR REPLACE FUNCTION kurz_a/,
    );
    await expect(readSqlDefinitions(join(tempDir, "other"))).rejects.toThrow(
      /a_trigger\.sql must start \(after its comments\) with CREATE OR REPLACE TRIGGER a_trigger/,
    );
  });
});
