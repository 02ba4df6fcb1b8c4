import { createHash } from "node:crypto";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { parseDatabaseUrl } from "./connection-url.ts";
import { PrismaClient } from "./generated/prisma/client.ts";

// node-postgres' own default; the API services are rate-limited, so ten connections per process is ample.
const DEFAULT_POOL_SIZE = 10;
// Distinct statements prepared per connection at most; past it, statements run unnamed as before.
const MAX_PREPARED_STATEMENTS = 1_000;

/**
 * Names for prepared statements, one per distinct SQL text: node-postgres then parses and plans a
 * statement once per connection instead of on every call. Planning a lookup by id on `links` (many
 * indexes) cost Postgres more than running it (docs/benchmarks/2026-11.md, "Where a GET's time goes").
 * Bounded, because a backend keeps every statement prepared on it: SQL built at run time (a raw
 * query with an interpolated list, say) could otherwise grow that without end. An empty name is
 * node-postgres' unnamed statement.
 */
export function preparedStatementNames(max = MAX_PREPARED_STATEMENTS): (query: { sql: string }) => string {
  const names = new Map<string, string>();
  return ({ sql }) => {
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= max) return "";
      name = `kurz_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
      names.set(sql, name);
    }
    return name;
  };
}

function searchPathOption(schema: string): string {
  // Inside libpq `options`, spaces and backslashes are escaped with a backslash.
  return pg.escapeIdentifier(schema).replace(/[\\ ]/g, "\\$&");
}

/** The pool under each client createPrisma made (decision 0044: the hottest reads skip Prisma). */
const pools = new WeakMap<PrismaClient, pg.Pool>();

/**
 * A Prisma client over a node-postgres pool (no Rust engine). The pool belongs to the client:
 * `$disconnect()` closes it. `?connection_limit=` and `?schema=` in the URL are honoured.
 */
export function createPrisma(databaseUrl: string): PrismaClient {
  const { connectionString, schema, connectionLimit } = parseDatabaseUrl(databaseUrl);
  const pool = new pg.Pool({
    connectionString,
    max: connectionLimit ?? DEFAULT_POOL_SIZE,
    idleTimeoutMillis: 30_000,
    // adapter-pg qualifies its generated queries with the schema; raw SQL needs the search_path.
    ...(schema ? { options: `-c search_path=${searchPathOption(schema)}` } : {}),
  });
  // An idle connection the server closed is dropped from the pool, and the next query opens another;
  // the adapter listens the same way once connected, but a direct read may come first.
  pool.on("error", () => {});
  const adapter = new PrismaPg(pool, {
    ...(schema ? { schema } : {}),
    statementNameGenerator: preparedStatementNames(),
    disposeExternalPool: true,
  });
  const client = new PrismaClient({ adapter });
  pools.set(client, pool);
  return client;
}

/**
 * The node-postgres pool under a client made by createPrisma: one pool (and one connection limit) for
 * Prisma and the few hot reads that run as plain prepared statements (decision 0044). Those reads use
 * node-postgres' default type parsing (timestamptz → Date, int8 → string, jsonb → parsed).
 */
export function poolOf(prisma: PrismaClient): Pick<pg.Pool, "query" | "connect"> {
  const pool = pools.get(prisma);
  if (!pool) throw new Error("poolOf: this Prisma client was not made by createPrisma");
  return pool;
}
