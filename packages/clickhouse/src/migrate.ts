import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { adoptPreBaselineDatabase, BASELINE_FILE } from "./baseline-adoption.ts";
import type { KurzClickHouse } from "./create-clickhouse.ts";
import { MIGRATIONS_DIR } from "./migrations-dir.ts";
import { splitStatements } from "./split-statements.ts";
import { applyViewDefinitions, VIEW_DEFINITIONS_DIR } from "./view-definitions.ts";

export { MIGRATIONS_DIR };

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;

interface MigrationFile {
  version: number;
  name: string;
  file: string;
  checksum: string;
  sql: string;
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

export interface MigrateDirs {
  /** `NNNN_name.sql` files; the package's migrations/ by default. */
  migrations?: string;
  /**
   * View definitions (view-definitions.ts); the package's definitions/ by default, and none when
   * `migrations` names another directory (its tables are not the ones the package's views read).
   */
  definitions?: string;
}

export interface MigrateResult {
  /** The migration files run, in order. */
  applied: string[];
  /** The views re-created from their definitions, in order. */
  views: string[];
}

/**
 * Brings the database up to date: applies `NNNN_name.sql` files in version order, each once, recorded
 * in `schema_migrations`, then re-creates each view whose definition file changed since the database
 * last applied it (view-definitions.ts). Refuses to run when an applied file has changed since: fix
 * forward with a new file instead. A database migrated before the baseline migration is adopted first,
 * or refused when it ran only part of the chain the baseline replaced (baseline-adoption.ts).
 *
 * ClickHouse has no transactional DDL and no locks, so a file that fails halfway is retried from
 * its first statement, and two processes migrating at once may both run a file. Statements must
 * therefore be idempotent (`CREATE TABLE IF NOT EXISTS`, `ADD COLUMN IF NOT EXISTS`, ...).
 */
export async function migrate(ch: KurzClickHouse, dirs: MigrateDirs = {}): Promise<MigrateResult> {
  const dir = dirs.migrations ?? MIGRATIONS_DIR;
  const definitionsDir =
    dirs.definitions ?? (dirs.migrations === undefined ? VIEW_DEFINITIONS_DIR : undefined);
  const files = await readMigrations(dir);
  // The version is the sorting key, so concurrent runs recording one file collapse to one row.
  await ch.command(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version UInt32,
      name String,
      checksum String,
      applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
    ) ENGINE = ReplacingMergeTree(applied_at)
    ORDER BY version`);
  const readApplied = async () =>
    new Map(
      (await ch.query<AppliedRow>("SELECT version, name, checksum FROM schema_migrations FINAL")).map(
        (row) => [row.version, row],
      ),
    );
  let applied = await readApplied();
  const baseline = files.find((f) => f.file === BASELINE_FILE);
  if (
    baseline &&
    (await adoptPreBaselineDatabase(
      ch,
      new Map([...applied].map(([version, row]) => [version, row.name])),
      baseline.checksum,
    ))
  ) {
    applied = await readApplied();
  }

  const changed = files.filter(
    (f) => applied.has(f.version) && applied.get(f.version)!.checksum !== f.checksum,
  );
  if (changed.length > 0) {
    throw new Error(
      `ClickHouse migrations changed after being applied: ${changed.map((f) => f.file).join(", ")}. ` +
        "Restore them and add a new migration for the change.",
    );
  }

  const done: string[] = [];
  for (const migration of files) {
    if (applied.has(migration.version)) continue;
    for (const statement of splitStatements(migration.sql)) {
      try {
        await ch.command(statement);
      } catch (err) {
        throw new Error(`ClickHouse migration ${migration.file} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    await ch.insert("schema_migrations", [
      { version: migration.version, name: migration.name, checksum: migration.checksum },
    ]);
    done.push(migration.file);
  }
  const views = definitionsDir ? await applyViewDefinitions(ch, definitionsDir) : [];
  return { applied: done, views };
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const files: MigrationFile[] = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort()) {
    const match = FILE_NAME.exec(file);
    if (!match) throw new Error(`ClickHouse migration ${file} is not named NNNN_name.sql`);
    // Line endings are normalised so a checkout with CRLF does not look like an edited file.
    const sql = (await readFile(join(dir, file), "utf8")).replace(/\r\n/g, "\n");
    const version = Number(match[1]);
    const clash = files.find((f) => f.version === version);
    if (clash) throw new Error(`ClickHouse migrations ${clash.file} and ${file} share version ${version}`);
    files.push({
      version,
      name: match[2]!,
      file,
      sql,
      checksum: createHash("sha256").update(sql).digest("hex"),
    });
  }
  return files;
}
