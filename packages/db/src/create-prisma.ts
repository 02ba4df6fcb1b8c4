import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { parseDatabaseUrl } from "./connection-url.ts";
import { PrismaClient } from "./generated/prisma/client.ts";

// node-postgres' own default; the API services are rate-limited, so ten connections per process is ample.
const DEFAULT_POOL_SIZE = 10;

function searchPathOption(schema: string): string {
  // Inside libpq `options`, spaces and backslashes are escaped with a backslash.
  return pg.escapeIdentifier(schema).replace(/[\\ ]/g, "\\$&");
}

/**
 * A Prisma client over a node-postgres pool (no Rust engine). The pool belongs to the client:
 * `$disconnect()` closes it. `?connection_limit=` and `?schema=` in the URL are honoured.
 */
export function createPrisma(databaseUrl: string): PrismaClient {
  const { connectionString, schema, connectionLimit } = parseDatabaseUrl(databaseUrl);
  const adapter = new PrismaPg(
    {
      connectionString,
      max: connectionLimit ?? DEFAULT_POOL_SIZE,
      idleTimeoutMillis: 30_000,
      // adapter-pg qualifies its generated queries with the schema; raw SQL needs the search_path.
      ...(schema ? { options: `-c search_path=${searchPathOption(schema)}` } : {}),
    },
    schema ? { schema } : undefined,
  );
  return new PrismaClient({ adapter });
}
