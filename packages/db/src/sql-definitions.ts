// The one definition of each Postgres function and trigger, a file per object under sql/. Prisma does
// not model them, and a migration re-declaring one on every change would leave its current text in
// whichever migration changed it last; so migrations never hold them. migrateDatabase applies these
// files after the migrations, each when its text differs from what the database last applied (Flyway's
// "repeatable migration"): changing a function is an edit of its file and nothing else.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { PACKAGE_DIR } from "../engine/schema-engine-env.mjs";

export const SQL_DEFINITIONS_DIR = join(PACKAGE_DIR, "sql");

/**
 * What each definition's file held when it was last applied, in the database's (the URL's) schema.
 * Not in schema.prisma, so neither the migrations nor Prisma's drift check know it: it is the
 * runner's bookkeeping, as _prisma_migrations is Prisma's.
 */
export const SQL_DEFINITIONS_TABLE = "_kurz_sql_definitions";

/** Functions first: a trigger names its function, which must exist when the trigger is created. */
const KINDS = [
  { folder: "functions", keyword: "FUNCTION" },
  { folder: "triggers", keyword: "TRIGGER" },
] as const;

export type SqlDefinitionKind = (typeof KINDS)[number]["folder"];

export interface SqlDefinition {
  kind: SqlDefinitionKind;
  /** The object's name, which is also the file's: `sql/<kind>/<name>.sql`. */
  name: string;
  file: string;
  sql: string;
  /** sha256 of `sql`: a different value makes migrateDatabase apply the file again. */
  checksum: string;
}

const NAME = /^[a-z_][a-z0-9_]*$/;
const COMMENTS = String.raw`(?:\s*--[^\n]*\n|\s*\n)*`;

/**
 * The file's required head: its comments, then CREATE OR REPLACE of the object it is named for, so
 * applying it again replaces the object in place. A function's file may first drop an older signature
 * of the same name (`DROP FUNCTION IF EXISTS name(old argument types);`), which CREATE OR REPLACE would
 * otherwise leave beside the new one as an overload; the drop is a no-op once it has run.
 */
function headOf(keyword: string, name: string): RegExp {
  const object = `(?:public\\.)?"?${name}"?`;
  const drops =
    keyword === "FUNCTION"
      ? `(?:DROP\\s+FUNCTION\\s+IF\\s+EXISTS\\s+${object}\\s*\\([^;]*\\)\\s*;${COMMENTS})*`
      : "";
  return new RegExp(
    `^${COMMENTS}\\s*${drops}\\s*CREATE\\s+OR\\s+REPLACE\\s+${keyword}\\s+${object}[\\s(]`,
    "i",
  );
}

/**
 * Every definition under `dir`, functions then triggers, each sorted by name (no function's creation
 * needs another: PL/pgSQL bodies are resolved when they run). Refuses a file that does not create,
 * with OR REPLACE, the object it is named for.
 */
export async function readSqlDefinitions(dir: string = SQL_DEFINITIONS_DIR): Promise<SqlDefinition[]> {
  const definitions: SqlDefinition[] = [];
  for (const { folder, keyword } of KINDS) {
    const names = (await readdir(join(dir, folder)).catch(() => [] as string[]))
      .filter((file) => file.endsWith(".sql"))
      .sort();
    for (const fileName of names) {
      const file = join(dir, folder, fileName);
      const name = fileName.slice(0, -".sql".length);
      if (!NAME.test(name))
        throw new Error(`${file}: name it <object name>.sql (lower-case letters, digits, _)`);
      // Line endings are normalised so a checkout with CRLF does not count as an edit.
      const sql = (await readFile(file, "utf8")).replace(/\r\n/g, "\n");
      if (!headOf(keyword, name).test(sql)) {
        throw new Error(`${file} must start (after its comments) with CREATE OR REPLACE ${keyword} ${name}`);
      }
      const checksum = createHash("sha256").update(sql).digest("hex");
      definitions.push({ kind: folder, name, file, sql, checksum });
    }
  }
  return definitions;
}

/**
 * Applies every definition whose file differs from what `client`'s database last applied, all in one
 * transaction with their bookkeeping (a failure leaves the database as it was, and names the file), and
 * returns them as `<kind>/<name>`. A definition whose file is gone loses its bookkeeping row, so a file
 * put back is applied again; the object itself is dropped by the migration that removes it.
 *
 * The caller serialises concurrent callers on one database (migrateDatabase's advisory lock). Each
 * statement is CREATE OR REPLACE, so running a file again is harmless: a function is replaced for the
 * transactions that start after the commit, and a trigger likewise.
 */
export async function applySqlDefinitions(
  client: pg.Client,
  dir: string = SQL_DEFINITIONS_DIR,
): Promise<string[]> {
  const definitions = await readSqlDefinitions(dir);
  const table = pg.escapeIdentifier(SQL_DEFINITIONS_TABLE);
  await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
    kind text NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, name)
  )`);
  const { rows } = await client.query<{ kind: string; name: string; checksum: string }>(
    `SELECT kind, name, checksum FROM ${table}`,
  );
  const recorded = new Map(rows.map((row) => [`${row.kind}/${row.name}`, row.checksum]));
  const changed = definitions.filter((d) => recorded.get(`${d.kind}/${d.name}`) !== d.checksum);
  const present = new Set(definitions.map((d) => `${d.kind}/${d.name}`));
  const gone = [...recorded.keys()].filter((key) => !present.has(key));
  if (changed.length === 0 && gone.length === 0) return [];

  await client.query("BEGIN");
  try {
    for (const definition of changed) {
      try {
        // One simple query: the file may hold several statements (a drop before the create).
        await client.query(definition.sql);
      } catch (error) {
        throw new Error(`${definition.file} failed: ${(error as Error).message}`, { cause: error });
      }
      await client.query(
        `INSERT INTO ${table} (kind, name, checksum) VALUES ($1, $2, $3)
         ON CONFLICT (kind, name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [definition.kind, definition.name, definition.checksum],
      );
    }
    for (const key of gone) {
      const [kind, name] = key.split("/");
      await client.query(`DELETE FROM ${table} WHERE kind = $1 AND name = $2`, [kind, name]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
  return changed.map((d) => `${d.kind}/${d.name}`);
}
