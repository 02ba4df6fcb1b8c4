// The current definition of each Postgres function and trigger, one file per object under sql/: the
// migrations re-declare an object whenever it changes, so only these files show what the database runs.
// A change is made here and carried to the database by a migration written from the file
// (writeMigrationFromDefinitions, `pnpm --filter @kurz/db run migration:from-definitions`);
// test/sql-definitions.test.ts checks that the migrations and the files describe the same objects.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { PACKAGE_DIR } from "../engine/schema-engine-env.mjs";
import { MIGRATIONS_DIR } from "./migrate-database.ts";

export const SQL_DEFINITIONS_DIR = join(PACKAGE_DIR, "sql");

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
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/** The statement after the leading comments and blank lines. */
function firstStatement(sql: string): string {
  return sql.replace(/^(\s*--[^\n]*\n|\s*\n)*/, "").trimStart();
}

/**
 * Every definition under `dir`, functions then triggers, each sorted by name. Refuses a file that does
 * not create, with OR REPLACE, the object it is named for: a migration written from it is applied over
 * the object the earlier migrations created.
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
      const sql = (await readFile(file, "utf8")).replace(/\r\n/g, "\n");
      const head = new RegExp(
        `^CREATE\\s+OR\\s+REPLACE\\s+${keyword}\\s+(?:public\\.)?"?${name}"?[\\s(]`,
        "i",
      );
      if (!head.test(firstStatement(sql))) {
        throw new Error(`${file} must start (after its comments) with CREATE OR REPLACE ${keyword} ${name}`);
      }
      definitions.push({ kind: folder, name, file, sql });
    }
  }
  return definitions;
}

export interface MigrationFromDefinitionsOptions {
  /** Definition names (a function's or a trigger's), applied in the order given. */
  names: string[];
  /** The migration's name after its timestamp; by default the one definition's name. */
  migrationName?: string;
  /** The migration's timestamp. */
  now: Date;
  definitionsDir?: string;
  migrationsDir?: string;
}

/**
 * Writes `prisma/migrations/<timestamp>_<name>/migration.sql` holding the named definitions as they
 * are now, and returns its path.
 */
export async function writeMigrationFromDefinitions(
  options: MigrationFromDefinitionsOptions,
): Promise<string> {
  const definitionsDir = options.definitionsDir ?? SQL_DEFINITIONS_DIR;
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  if (options.names.length === 0) throw new Error("name at least one function or trigger");
  const all = await readSqlDefinitions(definitionsDir);
  const chosen = options.names.map((name) => {
    const found = all.filter((definition) => definition.name === name);
    if (found.length === 0) {
      throw new Error(`no definition named ${name}; there are: ${all.map((d) => d.name).join(", ")}`);
    }
    if (found.length > 1) throw new Error(`${name} is both a function and a trigger: rename one`);
    return found[0]!;
  });
  const migrationName = options.migrationName ?? (chosen.length === 1 ? chosen[0]!.name : undefined);
  if (!migrationName) throw new Error("several definitions: give the migration a name (--name)");
  if (!NAME.test(migrationName))
    throw new Error(`migration name ${migrationName}: lower-case letters, digits, _`);

  const stamp = options.now.toISOString().replace(/\D/g, "").slice(0, 14);
  const dir = join(migrationsDir, `${stamp}_${migrationName}`);
  const parts = chosen.map(
    (definition) =>
      `-- From packages/db/sql/${relative(definitionsDir, definition.file)}, the current definition.\n${definition.sql.trimEnd()}\n`,
  );
  await mkdir(dir, { recursive: false });
  const file = join(dir, "migration.sql");
  await writeFile(file, parts.join("\n"));
  return file;
}
