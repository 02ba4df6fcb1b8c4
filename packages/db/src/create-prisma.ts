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
 * indexes) cost Postgres more than running it (docs/benchmarks.md, "Where a GET's time goes").
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
    { ...(schema ? { schema } : {}), statementNameGenerator: preparedStatementNames() },
  );
  return new PrismaClient({ adapter });
}
