import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
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
  /**
   * Migrate once, clone many: with a key that changes whenever what `migrate` does changes (e.g. a
   * hash of the migrations), `migrate` runs once into a template database named after the key, and
   * this database and every later one with the same key is a copy of it (CREATE DATABASE … TEMPLATE,
   * tens of milliseconds) instead of being migrated again (the Prisma CLI and its schema engine: a Node
   * start-up and ~2 s of CPU per database, ~50 times per `./kurz test`). See createMigratedDatabase.
   */
  template?: string;
  /** Default TEST_PG_ADMIN_URL or postgresql://postgres@127.0.0.1:5432/postgres. */
  adminUrl?: string;
}

const MAX_IDENTIFIER = 63;
const OBJECT_IN_USE = "55006";
/** Template databases are named `kurz_tmpl_<key>`; `<key>_build` while being migrated. */
export const TEMPLATE_PREFIX = "kurz_tmpl_";

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

function databaseUrl(adminUrl: string, name: string): URL {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url;
}

/**
 * CREATE DATABASE, optionally as a copy of a template (which nobody may be connected to: retried).
 * On PostgreSQL 15 and later the copy is file by file (`STRATEGY FILE_COPY`; older servers know no
 * other way): the default there, WAL_LOG, also writes every block of the copy into the WAL, about
 * 165 ms of the tests' server's CPU a migrated template against 43. FILE_COPY's checkpoints are cheap
 * on the tests' servers (no fsync, no full-page writes).
 */
async function createDatabase(client: pg.ClientBase, name: string, template?: string): Promise<void> {
  const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
  const strategy = Number(rows[0]?.v) >= 150_000 ? " STRATEGY FILE_COPY" : "";
  const sql = `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}${strategy}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(sql);
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt >= 20) throw err;
      await sleep(100 + attempt * 50);
    }
  }
}

/**
 * The template database for `key`, migrated by the first caller: one builder at a time across test
 * workers, concurrent runs and worktrees (an advisory lock on the name), the others wait and then
 * find it ready. Ready means renamed to its final name and marked a template, so a builder that was
 * killed half-way leaves only a `_build` database, which the next builder drops and starts over.
 * Templates refuse connections: CREATE DATABASE … TEMPLATE fails while anyone is connected.
 */
async function ensureTemplate(
  adminUrl: string,
  key: string,
  migrate: (url: string) => Promise<void>,
): Promise<string> {
  const safeKey = key.toLowerCase().replace(/[^a-z0-9_]+/g, "_");
  const name = `${TEMPLATE_PREFIX}${safeKey}`.slice(0, MAX_IDENTIFIER - "_build".length);
  const building = `${name}_build`;
  const ready = async (client: pg.ClientBase) =>
    (await client.query("SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate", [name]))
      .rowCount === 1;
  if (await withAdmin(adminUrl, ready)) return name;
  return withOwnAdmin(adminUrl, async (client) => {
    // A template cannot be dropped until it is unmarked.
    const dropBuilding = async () => {
      const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [building]);
      if (!rowCount) return;
      await client.query(`ALTER DATABASE "${building}" IS_TEMPLATE false`);
      await client.query(`DROP DATABASE "${building}" WITH (FORCE)`);
    };
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [name]);
    try {
      if (await ready(client)) return name;
      await dropBuilding();
      await createDatabase(client, building);
      try {
        await migrate(databaseUrl(adminUrl, building).toString());
        // Connections the migration left behind (a pool closing) would block the rename and every copy.
        await client.query(`ALTER DATABASE "${building}" WITH ALLOW_CONNECTIONS false IS_TEMPLATE true`);
        await client.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
          [building],
        );
        for (let attempt = 0; ; attempt++) {
          try {
            await client.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`);
            break;
          } catch (err) {
            if ((err as { code?: string }).code !== OBJECT_IN_USE || attempt >= 20) throw err;
            await sleep(100);
          }
        }
      } catch (err) {
        await dropBuilding().catch(() => {});
        throw err;
      }
      return name;
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [name]).catch(() => {});
    }
  });
}

/**
 * One admin connection pool per server and process, for creating and dropping databases: a new
 * connection is a new server process, about 25 ms of the tests' server's CPU to start and end, and
 * each test database takes three admin calls (the template check, the copy, the drop). Idle
 * connections close after a few seconds and never hold a process open.
 */
const adminPools = new Map<string, pg.Pool>();
function adminPool(adminUrl: string): pg.Pool {
  let pool = adminPools.get(adminUrl);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: adminUrl,
      connectionTimeoutMillis: 5000,
      max: 4,
      idleTimeoutMillis: 5000,
      allowExitOnIdle: true,
    });
    // An idle connection the server ended (a private server stopped) is dropped; the next call connects.
    pool.on("error", () => {});
    adminPools.set(adminUrl, pool);
  }
  return pool;
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
  const client = await adminPool(adminUrl).connect();
  let broken: Error | undefined;
  try {
    return await fn(client);
  } catch (err) {
    // A connection whose query failed may be in any state: it is closed, not reused.
    broken = err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

/** A connection of its own, for work that holds session state (an advisory lock) across queries. */
async function withOwnAdmin<T>(adminUrl: string, fn: (client: pg.ClientBase) => Promise<T>): Promise<T> {
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
  const template =
    options.template && options.migrate
      ? await ensureTemplate(adminUrl, options.template, options.migrate)
      : undefined;
  await withAdmin(adminUrl, (client) => createDatabase(client, name, template));
  const url = databaseUrl(adminUrl, name);

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
  if (options.migrate && !template) {
    try {
      await options.migrate(database.url);
    } catch (err) {
      await database.drop().catch(() => {});
      throw err;
    }
  }
  return database;
}

/**
 * Holds a session-level advisory lock on its own connection until `release` (or the connection's
 * end): e.g. the outbox relay's, so that the events a test's writes leave in the outbox stay there
 * for the test to read (the relay deletes what it publishes; services/management/src/db/outbox.ts).
 */
export async function holdAdvisoryLock(
  databaseUrl: string,
  key: number,
): Promise<{ release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [key]);
  } catch (err) {
    await client.end();
    throw err;
  }
  return { release: () => client.end() };
}
