import { randomBytes } from "node:crypto";

// Same variable as @kurz/testing, so one setting points every package's tests at the server.
const ADMIN_URL = process.env.TEST_PG_ADMIN_URL || "postgresql://postgres@127.0.0.1:5432/postgres";

/** A URL naming a database no other test (file or process) uses; the database does not exist yet. */
export function uniqueDatabaseUrl(label: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/kurz_db_${label}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  return url.toString();
}
