import pg from "pg";
import { parseDatabaseUrl, withDatabase } from "./connection-url.ts";

const DUPLICATE_DATABASE = "42P04";
const OBJECT_IN_USE = "55006";
const UNIQUE_VIOLATION = "23505";

async function withMaintenanceClient<T>(
  databaseUrl: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const { connectionString } = parseDatabaseUrl(databaseUrl);
  const client = new pg.Client({ connectionString: withDatabase(connectionString, "postgres") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function pgErrorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/** Creates the database named in the URL unless it exists. Safe to race with other callers. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const { database } = parseDatabaseUrl(databaseUrl);
  await withMaintenanceClient(databaseUrl, async (client) => {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (rowCount) return;
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
        return;
      } catch (error) {
        const code = pgErrorCode(error);
        // Two racing creators of the same name: the loser sees a duplicate (or the catalog's unique index).
        if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return;
        // CREATE DATABASE refuses while another session is connected to template1; that is brief.
        if (code === OBJECT_IN_USE && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 100 + attempt * 50));
          continue;
        }
        throw error;
      }
    }
  });
}

/** Drops the database named in the URL, disconnecting its sessions. For tests and teardown. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const { database } = parseDatabaseUrl(databaseUrl);
  await withMaintenanceClient(databaseUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(database)} WITH (FORCE)`),
  );
}
