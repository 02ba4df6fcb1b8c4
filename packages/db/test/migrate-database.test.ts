import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createMigratedDatabase } from "../../testing/src/migrated-database.ts";
import { dropDatabase, MIGRATIONS_DIR, migrateDatabase } from "../src/index.ts";
import { uniqueDatabaseUrl, withSchemaEngine } from "./databases.ts";

const created: string[] = [];
function freshUrl(label: string): string {
  const url = uniqueDatabaseUrl(label);
  created.push(url);
  return url;
}

afterAll(async () => {
  await Promise.all(created.map((url) => dropDatabase(url)));
});

async function query<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const tablesIn = (url: string, schema = "public") =>
  query<{ table_name: string }>(
    url,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
    [schema],
  ).then((rows) => rows.map((row) => row.table_name).sort());

// The databases migrated from nothing, both at once from separate CLI processes (each migration from
// nothing is a Prisma CLI run, about four seconds of CPU): `shared` by two callers at the same time,
// `tenant` by one, into schema tenant_a (`?schema=`). The tests that only read or write a migrated
// database use `shared`.
interface FromNothing {
  shared: string;
  /** Its URL without ?schema=. */
  tenant: string;
}
let fromNothing: Promise<FromNothing> | undefined;
function migratedFromNothing(): Promise<FromNothing> {
  fromNothing ??= (async () => {
    const shared = freshUrl("shared");
    const tenant = freshUrl("schema");
    await Promise.all([
      migrateDatabase(shared),
      migrateDatabase(shared),
      migrateDatabase(`${tenant}?schema=tenant_a`),
    ]);
    return { shared, tenant };
  })();
  return fromNothing;
}
const migratedOnce = async () => (await migratedFromNothing()).shared;

const MISSING_ENGINE = join(tmpdir(), "kurz-no-such-schema-engine");

const SCHEMA_PATH = join(import.meta.dirname, "..", "prisma", "schema.prisma");
// Every model's table, read from the schema itself, plus the bookkeeping of Prisma's migrations and of
// the sql/ definitions.
const EXPECTED_TABLES = [
  "_kurz_sql_definitions",
  "_prisma_migrations",
  ...[...readFileSync(SCHEMA_PATH, "utf8").matchAll(/@@map\("([^"]+)"\)/g)].map((m) => m[1]!),
].sort();

describe("migrateDatabase", () => {
  it("creates a missing database and every table in it", async () => {
    const url = await migratedOnce();

    expect(await tablesIn(url)).toEqual(EXPECTED_TABLES);
    const columns = await query<{ column_name: string; data_type: string }>(
      url,
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_name = 'links' AND column_name IN ('short_code', 'clicks_count', 'created_at')
        ORDER BY column_name`,
    );
    expect(columns).toEqual([
      { column_name: "clicks_count", data_type: "bigint" },
      { column_name: "created_at", data_type: "timestamp with time zone" },
      { column_name: "short_code", data_type: "text" },
    ]);
  });

  it("is a no-op on an up-to-date database, without the Prisma CLI", async () => {
    const url = await migratedOnce();
    const before = await query(url, "SELECT id, finished_at FROM _prisma_migrations ORDER BY id");

    // A schema engine that cannot start: the CLI would fail, so succeeding proves it was not run.
    await withSchemaEngine(MISSING_ENGINE, () => migrateDatabase(url));

    expect(await query(url, "SELECT id, finished_at FROM _prisma_migrations ORDER BY id")).toEqual(before);
    expect(before.length).toBeGreaterThan(0);
  });

  it("still runs the CLI when a migration is recorded as failed, and reports it", async () => {
    // A copy of the suite's migrated template (packages/testing): the premise, not the subject.
    const { url } = await createMigratedDatabase("kurz_db_failed");
    created.push(url);
    // As Prisma leaves a migration that failed half-way: recorded, not finished.
    await query(
      url,
      `UPDATE _prisma_migrations SET finished_at = NULL
        WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations)`,
    );

    await expect(migrateDatabase(url)).rejects.toThrow(/prisma migrate deploy failed/);
  });

  it("migrates several databases at once from separate CLI processes", async () => {
    const { shared, tenant } = await migratedFromNothing();

    expect(await tablesIn(shared)).toEqual(EXPECTED_TABLES);
    expect(await tablesIn(tenant, "tenant_a")).toEqual(EXPECTED_TABLES);
  });

  it("lets concurrent callers on the same database both succeed", async () => {
    const url = await migratedOnce();

    expect(await tablesIn(url)).toEqual(EXPECTED_TABLES);
    const appliedTwice = await query(
      url,
      "SELECT migration_name FROM _prisma_migrations GROUP BY migration_name HAVING count(*) > 1",
    );
    expect(appliedTwice).toEqual([]);
  });

  it("honours ?schema= in the URL", async () => {
    const { tenant } = await migratedFromNothing();

    expect(await tablesIn(tenant, "tenant_a")).toEqual(EXPECTED_TABLES);
    expect(await tablesIn(tenant, "public")).toEqual([]);
  });

  it("enforces lower-case emails in the database", async () => {
    const url = await migratedOnce();

    await expect(
      query(
        url,
        "INSERT INTO accounts (id, email, name, updated_at) VALUES (gen_random_uuid(), 'Ann@Example.com', 'Ann', now())",
      ),
    ).rejects.toThrow(/accounts_email_lower_case/);
    await expect(
      query(
        url,
        "INSERT INTO users (id, email, updated_at) VALUES (gen_random_uuid(), 'Ann@Example.com', now())",
      ),
    ).rejects.toThrow(/users_email_lower_case/);
  });
});

describe("migrateDatabase through a migration", () => {
  const newest = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .at(-1)!;
  // The record of the sql/ definitions applied (sql-definitions.ts); no table, none applied.
  const definitionsApplied = async (url: string) => {
    const [table] = await query<{ exists: boolean }>(
      url,
      "SELECT to_regclass('_kurz_sql_definitions') IS NOT NULL AS exists",
    );
    if (!table?.exists) return 0;
    return (await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM _kurz_sql_definitions"))[0]!.n;
  };

  it("refuses a migration that is not in the directory", async () => {
    await expect(
      migrateDatabase(freshUrl("through_unknown"), { through: "20000101000000_none" }),
    ).rejects.toThrow(/no migration named 20000101000000_none/);
  });

  it("stops there without the sql/ definitions, which a later full migrate applies", async () => {
    const url = freshUrl("through");

    await migrateDatabase(url, { through: newest });
    const applied = await query<{ migration_name: string }>(
      url,
      "SELECT migration_name FROM _prisma_migrations",
    );
    expect(applied.map((row) => row.migration_name).at(-1)).toBe(newest);
    expect(await definitionsApplied(url)).toBe(0);

    await migrateDatabase(url);
    expect(await definitionsApplied(url)).toBeGreaterThan(0);
  });
});
