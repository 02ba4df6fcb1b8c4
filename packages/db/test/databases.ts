import { randomBytes } from "node:crypto";

// Same variable as @kurz/testing, so one setting points every package's tests at the server.
const ADMIN_URL = process.env.TEST_PG_ADMIN_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

/** A URL naming a database no other test (file or process) uses; the database does not exist yet. */
export function uniqueDatabaseUrl(label: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/kurz_db_${label}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  return url.toString();
}

/**
 * Runs `fn` with the Prisma CLI pointed at another schema engine binary. A test file's worker owns its
 * process.env; the variable is restored before any other test runs.
 */
export async function withSchemaEngine<T>(binary: string, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.PRISMA_SCHEMA_ENGINE_BINARY;
  process.env.PRISMA_SCHEMA_ENGINE_BINARY = binary;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.PRISMA_SCHEMA_ENGINE_BINARY;
    else process.env.PRISMA_SCHEMA_ENGINE_BINARY = previous;
  }
}
