// The current definition of each ClickHouse view, one file per view under definitions/: the migrations
// re-create a view whenever it changes, so only these files show what feeds each table now. A change is
// made here and carried to databases by a migration written from the file
// (writeMigrationFromViewDefinitions, `pnpm --filter @kurz/clickhouse run migration:from-definitions`);
// test/view-definitions.test.ts checks that the migrations and the files make the same views.
// Reads and writes files only, so it does not load chDB.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { MIGRATIONS_DIR } from "./migrations-dir.ts";
import { splitStatements } from "./split-statements.ts";

export const VIEW_DEFINITIONS_DIR = fileURLToPath(new URL("../definitions/", import.meta.url));

export interface ViewDefinition {
  /** The view's name, which is also the file's: `definitions/<name>.sql`. */
  name: string;
  file: string;
  /** The one CREATE statement, without a trailing semicolon. */
  statement: string;
  /** The file as written, comments included. */
  sql: string;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Every definition in `dir`, sorted by name. Refuses a file that is not one
 * `CREATE [MATERIALIZED] VIEW IF NOT EXISTS <its name>` statement: migrations must be safe to rerun
 * (migrate.ts), and a written migration drops the view just before it.
 */
export async function readViewDefinitions(dir: string = VIEW_DEFINITIONS_DIR): Promise<ViewDefinition[]> {
  const definitions: ViewDefinition[] = [];
  for (const fileName of (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort()) {
    const file = join(dir, fileName);
    const name = fileName.slice(0, -".sql".length);
    if (!NAME.test(name)) throw new Error(`${file}: name it <view name>.sql (lower-case letters, digits, _)`);
    const sql = (await readFile(file, "utf8")).replace(/\r\n/g, "\n");
    const statements = splitStatements(sql);
    const head = new RegExp(
      `^CREATE\\s+(MATERIALIZED\\s+)?VIEW\\s+IF\\s+NOT\\s+EXISTS\\s+\`?${name}\`?\\s`,
      "i",
    );
    const statement = statements[0]?.replace(/^(\s*--[^\n]*\n|\s*\n)*/, "").trimStart() ?? "";
    if (statements.length !== 1 || !head.test(statement)) {
      throw new Error(`${file} must be one statement: CREATE [MATERIALIZED] VIEW IF NOT EXISTS ${name} …`);
    }
    definitions.push({ name, file, statement: statements[0]!, sql });
  }
  return definitions;
}

export interface MigrationFromViewDefinitionsOptions {
  /** View names, re-created in the order given (a view that feeds the others last). */
  names: string[];
  /** The migration's name after its number; by default the one view's name. */
  migrationName?: string;
  definitionsDir?: string;
  migrationsDir?: string;
}

const MIGRATION_FILE = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Writes `migrations/<next number>_<name>.sql`, which drops each named view and creates it from its
 * definition as it is now, and returns its path.
 */
export async function writeMigrationFromViewDefinitions(
  options: MigrationFromViewDefinitionsOptions,
): Promise<string> {
  const definitionsDir = options.definitionsDir ?? VIEW_DEFINITIONS_DIR;
  const migrationsDir = options.migrationsDir ?? MIGRATIONS_DIR;
  if (options.names.length === 0) throw new Error("name at least one view");
  const all = await readViewDefinitions(definitionsDir);
  const chosen = options.names.map((name) => {
    const found = all.find((definition) => definition.name === name);
    if (!found)
      throw new Error(`no definition named ${name}; there are: ${all.map((d) => d.name).join(", ")}`);
    return found;
  });
  const migrationName = options.migrationName ?? (chosen.length === 1 ? chosen[0]!.name : undefined);
  if (!migrationName) throw new Error("several views: give the migration a name (--name)");
  if (!NAME.test(migrationName))
    throw new Error(`migration name ${migrationName}: lower-case letters, digits, _`);

  const versions = (await readdir(migrationsDir)).flatMap((f) => {
    const match = MIGRATION_FILE.exec(f);
    return match ? [Number(match[1])] : [];
  });
  const version = String(Math.max(0, ...versions) + 1).padStart(4, "0");
  const file = join(migrationsDir, `${version}_${migrationName}.sql`);
  const header = [
    `-- Re-creates ${chosen.map((d) => d.name).join(", ")} from their current definitions (each below).`,
    "-- Stop every analytics instance before the first one with this migration starts",
    "-- (docs/analytics.md): a click inserted between a dropped view and its new one would be missing from",
    "-- what the view feeds. A view that must also cover the clicks already stored needs a backfill here.",
  ].join("\n");
  const parts = chosen.map(
    (definition) =>
      `-- From packages/clickhouse/definitions/${relative(definitionsDir, definition.file)}.\nDROP VIEW IF EXISTS ${definition.name};\n${definition.sql.trimEnd()}\n`,
  );
  // `wx`: never overwrites a migration.
  await writeFile(file, `${header}\n\n${parts.join("\n")}`, { flag: "wx" });
  return file;
}
