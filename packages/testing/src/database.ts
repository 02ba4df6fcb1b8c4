import { randomBytes } from "node:crypto";
import pg from "pg";
import { pgAdminUrl } from "./infra.ts";

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Runs against the new database before it is handed out (e.g. packages/db's migrateDatabase). */
  migrate?: (url: string) => Promise<void>;
  /** Default TEST_PG_ADMIN_URL or postgresql://postgres@127.0.0.1:5432/postgres. */
  adminUrl?: string;
}

const MAX_IDENTIFIER = 63;

/** A lowercase name safe to use unquoted; the random tail keeps parallel files apart. */
export function testDatabaseName(prefix = "test"): string {
  const tail = `${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const head =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, "_")
      .replace(/^[^a-z_]+/, "") || "test";
  return `${head.slice(0, MAX_IDENTIFIER - tail.length - 1)}_${tail}`;
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(
  prefix = "test",
  options: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? pgAdminUrl();
  const name = testDatabaseName(prefix);
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;

  let dropped: Promise<void> | undefined;
  const database: TestDatabase = {
    url: url.toString(),
    name,
    drop: () => {
      // FORCE ends connections a test forgot to close, which would otherwise block the drop.
      dropped ??= withAdmin(adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      return dropped;
    },
  };
  if (options.migrate) {
    try {
      await options.migrate(database.url);
    } catch (err) {
      await database.drop().catch(() => {});
      throw err;
    }
  }
  return database;
}
