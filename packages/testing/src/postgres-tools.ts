// Debian's PostgreSQL server tools for the tests that run servers of their own (tests/chaos'
// private servers; the check of ./kurz test's own server, infra/local/test-postgres.test.ts).
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The newest installed version's tool, e.g. /usr/lib/postgresql/15/bin/pg_ctl. */
export function pgBin(tool: string): string {
  const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
  return join("/usr/lib/postgresql", versions[0]!, "bin", tool);
}

/** A tool's command line, as the postgres user when root: initdb and postgres refuse to run as root. */
export function asPostgres(tool: string, args: string[]): [string, string[]] {
  const cmd = pgBin(tool);
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
}
