// The one definition of each ClickHouse view, a file per view under definitions/. A materialized view
// cannot be altered in place, and a migration re-creating one on every change would leave its current
// query in whichever migration changed it last; so migrations never hold one. `migrate` applies these
// files after the migrations, each when its text differs from what the database last applied (Flyway's
// "repeatable migration"): changing a view is an edit of its file and nothing else.
//
// Re-creating a materialized view is a DROP and a CREATE: a click inserted between the two is missing
// from what the view feeds (the rows in `clicks` are complete; a rollup is not). `migrate` runs before
// the service consumes, so one analytics instance loses nothing; with several, stop them all before the
// first one whose definitions changed starts (docs/analytics.md).
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { KurzClickHouse } from "./create-clickhouse.ts";
import { VIEW_DEFINITIONS_DIR } from "./migrations-dir.ts";
import { splitStatements } from "./split-statements.ts";

export { VIEW_DEFINITIONS_DIR };

/** What each view's file held when it was last applied: the runner's bookkeeping, as schema_migrations. */
export const VIEW_DEFINITIONS_TABLE = "schema_definitions";

export interface ViewDefinition {
  /** The view's name, which is also the file's: `definitions/<name>.sql`. */
  name: string;
  file: string;
  /** The one CREATE statement, without a trailing semicolon. */
  statement: string;
  /** The file as written, comments included. */
  sql: string;
  /** sha256 of `sql`: a different value makes `migrate` re-create the view. */
  checksum: string;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/** sha256 of a definition file's text, line endings normalised (a CRLF checkout is not an edit). */
export function definitionChecksum(sql: string): string {
  return createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex");
}

/**
 * Every definition in `dir`, sorted by name. Refuses a file that is not one
 * `CREATE [MATERIALIZED] VIEW IF NOT EXISTS <its name>` statement: IF NOT EXISTS makes a second
 * process applying the same file at once harmless.
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
    definitions.push({ name, file, statement: statements[0]!, sql, checksum: definitionChecksum(sql) });
  }
  return definitions;
}

const TARGET = /\bTO\s+`?(\w+)`?/i;
const SOURCES = /\bFROM\s+`?(\w+)`?/gi;

/**
 * The views in the order to create them: a view that writes into a table another of them reads comes
 * after that one, so a chain of views is built from its end and nothing flows into it half-built
 * (click_feed_mv, which clicks feed, last). Otherwise by name.
 */
export function consumersFirst(definitions: ViewDefinition[]): ViewDefinition[] {
  const reads = new Map(
    definitions.map((d) => [d.name, new Set([...d.statement.matchAll(SOURCES)].map((m) => m[1]!))]),
  );
  const left = [...definitions];
  const ordered: ViewDefinition[] = [];
  while (left.length > 0) {
    const next =
      left.find((d) => {
        const target = TARGET.exec(d.statement)?.[1];
        return !left.some(
          (other) => other !== d && target !== undefined && reads.get(other.name)!.has(target),
        );
      }) ?? left[0]!; // a cycle cannot be ordered; ClickHouse refuses one anyway
    ordered.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return ordered;
}

/** Creates the bookkeeping table if missing. */
export async function ensureViewDefinitionsTable(ch: KurzClickHouse): Promise<void> {
  // The name is the sorting key, so concurrent runs recording one view collapse to one row.
  await ch.command(`
    CREATE TABLE IF NOT EXISTS ${VIEW_DEFINITIONS_TABLE} (
      name String,
      checksum String,
      applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = ReplacingMergeTree(applied_at)
    ORDER BY name`);
}

/**
 * Re-creates every view whose file differs from what the database last applied (DROP VIEW IF EXISTS,
 * then the file's CREATE, then its bookkeeping row), consumers first, and returns their names. A view
 * whose file is gone loses its bookkeeping row, so a file put back is applied again; the view itself
 * is dropped by the migration that removes it. ClickHouse has no transactions: a failure leaves the
 * views before it re-created and the failing one dropped, and the next run re-creates that one.
 */
export async function applyViewDefinitions(
  ch: KurzClickHouse,
  dir: string = VIEW_DEFINITIONS_DIR,
): Promise<string[]> {
  const definitions = await readViewDefinitions(dir);
  await ensureViewDefinitionsTable(ch);
  const recorded = new Map(
    (
      await ch.query<{ name: string; checksum: string }>(
        `SELECT name, checksum FROM ${VIEW_DEFINITIONS_TABLE} FINAL`,
      )
    ).map((row) => [row.name, row.checksum]),
  );
  const changed = consumersFirst(definitions.filter((d) => recorded.get(d.name) !== d.checksum));
  for (const definition of changed) {
    // Forgotten first: should the CREATE fail (or the process stop) after the DROP, the next run
    // re-creates the view whatever its file then holds, the text it had before included.
    await forget(ch, definition.name);
    try {
      await ch.command(`DROP VIEW IF EXISTS ${definition.name}`);
      await ch.command(definition.statement);
    } catch (err) {
      throw new Error(`ClickHouse view ${definition.file} failed: ${(err as Error).message}`, { cause: err });
    }
    await ch.insert(VIEW_DEFINITIONS_TABLE, [{ name: definition.name, checksum: definition.checksum }]);
  }
  const present = new Set(definitions.map((d) => d.name));
  for (const name of recorded.keys()) if (!present.has(name)) await forget(ch, name);
  return changed.map((d) => d.name);
}

async function forget(ch: KurzClickHouse, name: string): Promise<void> {
  await ch.command(`DELETE FROM ${VIEW_DEFINITIONS_TABLE} WHERE name = {name:String}`, { name });
}
