// The definition files under sql/ are the functions and triggers: a migrated database has exactly the
// objects the files create (so no migration creates one behind their back, and none is left over), and
// migrateDatabase applies a file again when, and only when, it changes. Postgres compares the objects
// in its own words (pg_get_functiondef, pg_get_triggerdef), so the files' comments and layout outside
// a body are free.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "../../testing/src/database.ts";
import { createMigratedDatabase } from "../../testing/src/migrated-database.ts";
import {
  applySqlDefinitions,
  readSqlDefinitions,
  SQL_DEFINITIONS_DIR,
  SQL_DEFINITIONS_TABLE,
  type SqlDefinition,
} from "../src/sql-definitions.ts";
import { OWN_FUNCTIONS, OWN_TRIGGERS, type RoutineCatalog, routineCatalog } from "./schema-catalog.ts";

/**
 * The catalog the definitions alone make: in a transaction rolled back afterwards, every function and
 * trigger of the migrated database is dropped (with what depends on a function, such as a column
 * default, which is not compared) and the definitions are applied in its place.
 */
async function catalogFromDefinitions(
  client: pg.Client,
  definitions: SqlDefinition[],
): Promise<RoutineCatalog> {
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
    return await routineCatalog(client);
  } finally {
    await client.query("ROLLBACK");
  }
}

let database: TestDatabase | undefined;
let client: pg.Client;
let tempDir = "";
let migrated: RoutineCatalog = {};

beforeAll(async () => {
  // A copy of the suite's migrated template (packages/testing), which migrateDatabase made from
  // nothing: the migrations' objects and the definitions as a fresh database has them.
  database = await createMigratedDatabase("kurz_db_definitions");
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  migrated = await routineCatalog(client);
  tempDir = await mkdtemp(join(tmpdir(), "kurz-db-definitions-"));
});

afterAll(async () => {
  await client?.end().catch(() => {});
  await database?.drop();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
});

/** A copy of sql/ to edit; `edit` maps a file under it to its new text. */
async function definitionsCopy(name: string, edit: Record<string, (sql: string) => string> = {}) {
  const dir = join(tempDir, name);
  await cp(SQL_DEFINITIONS_DIR, dir, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    await writeFile(join(dir, file), change(await readFile(join(dir, file), "utf8")));
  }
  return dir;
}

const recorded = async () =>
  (
    await client.query<{ key: string; checksum: string }>(
      `SELECT kind || '/' || name AS key, checksum FROM ${SQL_DEFINITIONS_TABLE} ORDER BY (kind || '/' || name) COLLATE "C"`,
    )
  ).rows;

const EDITED_BODY = (sql: string) => sql.replace("BEGIN", "BEGIN\n  -- edited");

describe("a migrated database and sql/", () => {
  it("have the same functions and triggers (add a file under sql/ for an object a migration created)", async () => {
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
        definition === changed ? { ...definition, sql: EDITED_BODY(definition.sql) } : definition,
      );

    const fromDefinitions = await catalogFromDefinitions(client, edited);

    const differing = Object.keys(migrated).filter((key) => fromDefinitions[key] !== migrated[key]);
    expect(differing).toEqual([
      expect.stringMatching(/^kurz_count_links\(/),
      expect.stringMatching(new RegExp(`^trigger ${missing.name} on `)),
    ]);
    // The rollback left the migrated database as it was.
    expect(await routineCatalog(client)).toEqual(migrated);
  });
});

describe("applySqlDefinitions", () => {
  it("applies nothing while the files are as last applied, and a file again once it changes", async () => {
    const definitions = await readSqlDefinitions();
    const before = await recorded();
    expect(before.map((row) => row.key)).toEqual(definitions.map((d) => `${d.kind}/${d.name}`));

    expect(await applySqlDefinitions(client, await definitionsCopy("same"))).toEqual([]);

    const edited = await definitionsCopy("edited", { "functions/kurz_count_links.sql": EDITED_BODY });
    expect(await applySqlDefinitions(client, edited)).toEqual(["functions/kurz_count_links"]);
    const [key] = Object.keys(migrated).filter((k) => k.startsWith("kurz_count_links("));
    expect((await routineCatalog(client))[key!]).toContain("-- edited");
    expect(await applySqlDefinitions(client, edited)).toEqual([]);

    // Back to the package's files: the one that differs from them is applied again.
    expect(await applySqlDefinitions(client)).toEqual(["functions/kurz_count_links"]);
    expect(await routineCatalog(client)).toEqual(migrated);
    expect(await recorded()).toEqual(before);
  });

  it("applies none of the changed files when one fails, and names it", async () => {
    const before = await recorded();
    const broken = await definitionsCopy("broken", {
      "functions/kurz_count_links.sql": EDITED_BODY,
      "triggers/links_record_version.sql": (sql) =>
        sql.replace("FUNCTION kurz_links_next_version", "FUNCTION kurz_no_such_function"),
    });

    await expect(applySqlDefinitions(client, broken)).rejects.toThrow(
      /links_record_version\.sql failed: .*kurz_no_such_function/,
    );

    expect(await routineCatalog(client)).toEqual(migrated);
    expect(await recorded()).toEqual(before);
  });

  it("replaces an older signature that the file drops first, and forgets a definition whose file is gone", async () => {
    const before = await recorded();
    await client.query(
      "CREATE FUNCTION kurz_recount_links(p_account uuid, p_old integer) RETURNS integer LANGUAGE sql AS 'SELECT 1'",
    );
    const dir = await definitionsCopy("signature", {
      "functions/kurz_recount_links.sql": (sql) =>
        sql.replace(
          /CREATE OR REPLACE FUNCTION/,
          "DROP FUNCTION IF EXISTS kurz_recount_links(uuid, integer);\n-- why\nCREATE OR REPLACE FUNCTION",
        ),
    });
    await rm(join(dir, "triggers", "overlays_record_version.sql"));

    expect(await applySqlDefinitions(client, dir)).toEqual(["functions/kurz_recount_links"]);

    expect(await routineCatalog(client)).toEqual(migrated);
    expect((await recorded()).map((row) => row.key)).not.toContain("triggers/overlays_record_version");

    expect(await applySqlDefinitions(client)).toEqual([
      "functions/kurz_recount_links",
      "triggers/overlays_record_version",
    ]);
    expect(await recorded()).toEqual(before);
  });
});

describe("readSqlDefinitions", () => {
  it("refuses a file that does not CREATE OR REPLACE the object it is named for", async () => {
    const cases = {
      "plain/functions/kurz_a.sql":
        "-- why\nCREATE FUNCTION kurz_a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
      "other/triggers/a_trigger.sql": "CREATE OR REPLACE TRIGGER b_trigger AFTER UPDATE ON t\n",
      "dropother/functions/kurz_a.sql":
        "DROP FUNCTION IF EXISTS kurz_b(int);\nCREATE OR REPLACE FUNCTION kurz_a() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
    };
    for (const [path, sql] of Object.entries(cases)) {
      await mkdir(dirname(join(tempDir, path)), { recursive: true });
      await writeFile(join(tempDir, path), sql);
    }

    await expect(readSqlDefinitions(join(tempDir, "plain"))).rejects.toThrow(
      /kurz_a\.sql must start \(after its comments\) with CREATE OR REPLACE FUNCTION kurz_a/,
    );
    await expect(readSqlDefinitions(join(tempDir, "other"))).rejects.toThrow(
      /a_trigger\.sql must start \(after its comments\) with CREATE OR REPLACE TRIGGER a_trigger/,
    );
    await expect(readSqlDefinitions(join(tempDir, "dropother"))).rejects.toThrow(
      /kurz_a\.sql must start \(after its comments\) with CREATE OR REPLACE FUNCTION kurz_a/,
    );
  });
});
