// Prisma-style URLs carry parameters node-postgres does not know (`schema`, `connection_limit`, ...).
const PRISMA_ONLY_PARAMS = [
  "schema",
  "connection_limit",
  "pool_timeout",
  "pgbouncer",
  "statement_cache_size",
];

export interface PgTarget {
  /** The URL without Prisma-only parameters, for node-postgres. */
  connectionString: string;
  database: string;
  /** Postgres schema from `?schema=`, when set. */
  schema: string | undefined;
  /** Pool size from `?connection_limit=`, when set. */
  connectionLimit: number | undefined;
}

export function parseDatabaseUrl(databaseUrl: string): PgTarget {
  const url = new URL(databaseUrl);
  if (url.protocol !== "postgresql:" && url.protocol !== "postgres:") {
    throw new Error(`Expected a postgresql:// URL, got ${url.protocol}//`);
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!database) throw new Error("The database URL names no database");
  const schema = url.searchParams.get("schema") ?? undefined;
  const limit = url.searchParams.get("connection_limit");
  for (const param of PRISMA_ONLY_PARAMS) url.searchParams.delete(param);
  return {
    connectionString: url.toString(),
    database,
    schema,
    connectionLimit: limit ? Number.parseInt(limit, 10) : undefined,
  };
}

/** The same server and credentials, another database. */
export function withDatabase(connectionString: string, database: string): string {
  const url = new URL(connectionString);
  url.pathname = `/${encodeURIComponent(database)}`;
  return url.toString();
}

/** For error messages: the URL without its password. */
export function redactUrl(text: string): string {
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]+):[^@\s]*@/g, "$1:***@");
}
