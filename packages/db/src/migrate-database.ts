import { cp, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { adoptPreBaselineDatabase, BASELINE_MIGRATION } from "./baseline-adoption.ts";
import { parseDatabaseUrl, redactUrl } from "./connection-url.ts";
import { ensureDatabase } from "./database-admin.ts";
import { MIGRATIONS_DIR } from "./migrations-dir.ts";
import { type PrismaCliResult, runPrismaCli } from "./prisma-cli.ts";
import { applySqlDefinitions, SQL_DEFINITIONS_DIR } from "./sql-definitions.ts";

export { MIGRATIONS_DIR };

// Serialises our own callers per database. Deliberately not Prisma's key (72707369): the engine takes
// that one itself on another connection, and sharing it would deadlock.
const MIGRATE_LOCK_KEY = 0x6b75727a; // "kurz"

async function migrationNames(): Promise<string[]> {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

const UNDEFINED_TABLE = "42P01";

async function appliedMigrationNames(client: pg.Client): Promise<Set<string>> {
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      `SELECT migration_name FROM _prisma_migrations
        WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    return new Set(rows.map((row) => row.migration_name));
  } catch (error) {
    // No migrations table: the engine never got as far as recording anything.
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return new Set();
    throw error;
  }
}

export interface MigrateOptions {
  /** Receives the Prisma CLI's output (it is otherwise only shown when migrating fails). */
  log?: (text: string) => void;
  /** The function and trigger definitions; the package's sql/ by default. */
  definitionsDir?: string;
  /**
   * The last migration to apply (its directory name): the database as it stood when that migration
   * was the newest, e.g. to load data recorded then and migrate it onwards. The sql/ definitions are
   * not applied: they are today's, written for the newest schema.
   */
  through?: string;
}

/**
 * Brings the database named in `databaseUrl` up to date, creating the database first if needed: the
 * migrations (`prisma migrate deploy`), then each definition under sql/ whose file changed since the
 * database last applied it (sql-definitions.ts). A database migrated before the baseline migration is
 * adopted first, or refused when it ran only part of the chain the baseline replaced
 * (baseline-adoption.ts). Idempotent. Callers on different databases run independently; callers on
 * the same database queue behind an advisory lock.
 */
export async function migrateDatabase(databaseUrl: string, options: MigrateOptions = {}): Promise<void> {
  const { connectionString, schema } = parseDatabaseUrl(databaseUrl);
  const all = await migrationNames();
  const { through } = options;
  if (through !== undefined && !all.includes(through)) {
    throw new Error(`no migration named ${through} in ${MIGRATIONS_DIR}`);
  }
  await ensureDatabase(databaseUrl);
  const expected = through === undefined ? all : all.filter((name) => name <= through);

  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    // Prisma keeps _prisma_migrations in the URL's schema.
    if (schema) await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATE_LOCK_KEY]);
    const before = await appliedMigrationNames(client);
    if (await adoptPreBaselineDatabase(client, before)) {
      options.log?.("Every migration the baseline replaced has run: the baseline is recorded as applied.\n");
      before.add(BASELINE_MIGRATION);
    }
    // Nothing pending (every restart of `./kurz up`, the image's migrate step, a caller that waited
    // for another's migration): the CLI, a Node start-up and the schema engine, would take about a
    // second to say so. A migration recorded as failed or rolled back is not applied, so it still
    // goes to the CLI, which reports it.
    if (expected.every((name) => before.has(name))) {
      options.log?.("No pending migrations to apply.\n");
    } else {
      await deploy(client, databaseUrl, expected, options);
    }
    if (through !== undefined) return;
    const definitions = await applySqlDefinitions(client, options.definitionsDir ?? SQL_DEFINITIONS_DIR);
    if (definitions.length > 0) options.log?.(`Applied from sql/: ${definitions.join(", ")}\n`);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATE_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}

/** `prisma migrate deploy`, then a check that it applied every migration in the directory. */
async function deploy(
  client: pg.Client,
  databaseUrl: string,
  expected: string[],
  options: MigrateOptions,
): Promise<void> {
  const { code, output } =
    options.through === undefined
      ? await runPrismaCli(["migrate", "deploy"], databaseUrl)
      : await deployThrough(databaseUrl, expected);
  options.log?.(redactUrl(output));
  if (code !== 0) {
    throw new Error(`prisma migrate deploy failed (exit ${code}):\n${redactUrl(output)}`);
  }
  // The CLI has exited 0 after its schema engine died; trust the migrations table, not the exit code.
  const applied = await appliedMigrationNames(client);
  const missing = expected.filter((name) => !applied.has(name));
  if (missing.length > 0) {
    throw new Error(
      `prisma migrate deploy exited 0 but these migrations are not applied: ${missing.join(", ")}\n${redactUrl(output)}`,
    );
  }
}

/**
 * `prisma migrate deploy` over a copy of the migrations directory that holds only `names`: the CLI
 * applies every migration it finds, so the later ones must not be there. Its config names the package's
 * schema and the copy (a plain object: the copy's directory cannot resolve the `prisma` package).
 */
async function deployThrough(databaseUrl: string, names: string[]): Promise<PrismaCliResult> {
  const dir = await mkdtemp(join(tmpdir(), "kurz-migrations-"));
  try {
    const migrations = join(dir, "migrations");
    await cp(join(MIGRATIONS_DIR, "migration_lock.toml"), join(migrations, "migration_lock.toml"));
    for (const name of names)
      await cp(join(MIGRATIONS_DIR, name), join(migrations, name), { recursive: true });
    const config = join(dir, "prisma.config.mjs");
    const schema = JSON.stringify(join(MIGRATIONS_DIR, "..", "schema.prisma"));
    // The URL stays in the CLI's environment (runPrismaCli), out of a file.
    await writeFile(
      config,
      `export default { schema: ${schema}, migrations: { path: ${JSON.stringify(migrations)} }, ` +
        "datasource: { url: process.env.DATABASE_URL } };\n",
    );
    return await runPrismaCli(["migrate", "deploy", "--config", config], databaseUrl);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
