// A test database with every Postgres migration and sql/ definition applied, as a copy of a template
// migrated once per set of migrations and definitions (database.ts, `template`): the stacks and the
// tests that need the schema get it in tens of milliseconds, where `prisma migrate deploy` per database
// cost a Node start-up and ~2 s of CPU.
// packages/db's tests of migrating itself still migrate from nothing (its other tests copy the template);
// so does the first database after any migration or definition changes.
import { MIGRATIONS_DIR, migrateDatabase, SQL_DEFINITIONS_DIR } from "@kurz/db";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { filesKey } from "./files-key.ts";
import { type CuttableProxy, cuttableProxyFor } from "./tcp-proxy.ts";

let key: string | undefined;

/** The Postgres migrations' and definitions' key (files-key.ts): the template's name. */
export function migrationsKey(): string {
  key ??= filesKey(MIGRATIONS_DIR, filesKey(SQL_DEFINITIONS_DIR));
  return key;
}

export function createMigratedDatabase(prefix: string, adminUrl?: string): Promise<TestDatabase> {
  return createTestDatabase(prefix, {
    migrate: (url) => migrateDatabase(url),
    template: `migrations_${migrationsKey()}`,
    ...(adminUrl ? { adminUrl } : {}),
  });
}

export interface DatabaseBehindProxy {
  /** The database itself; `database.url` goes straight to Postgres (for the test's own checks). */
  database: TestDatabase;
  /** Cut it to take the database away from whoever connects through `url`. */
  proxy: CuttableProxy;
  /** The database's URL through the proxy (what the services under test are given). */
  url: string;
  /** Closes the proxy and drops the database. */
  drop(): Promise<void>;
}

/** A migrated database behind a cuttable TCP proxy: an outage a test can start and end at will. */
export async function migratedDatabaseBehindProxy(prefix: string): Promise<DatabaseBehindProxy> {
  const database = await createMigratedDatabase(prefix);
  const { proxy, url } = await cuttableProxyFor(database.url).catch(async (err: unknown) => {
    await database.drop();
    throw err;
  });
  return {
    database,
    proxy,
    url,
    drop: async () => {
      await proxy.cut();
      await database.drop();
    },
  };
}
