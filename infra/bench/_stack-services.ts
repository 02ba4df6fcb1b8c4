// For the benchmarks that start stacks: the services' registrations with @kurz/testing (vitest.stack.ts
// says why; they run as scripts, not under vitest, so no setup file runs for them), and the stack's
// environment as deployed.
import "../../services/analytics/test/register-stack.ts";
import "../../services/gateway/test/register-stack.ts";
import "../../services/management/test/register-stack.ts";
import "../../services/redirect/test/register-stack.ts";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Production mode, as deployed: responses are not validated against their records (that check runs
 * in development and tests), and production refuses the development default of every secret, so each
 * gets one of its own. Quiet logs, no title fetching, and a spool directory named for `bench`
 * (SPOOL_DIR, the caller's to remove).
 */
export const productionEnv = (bench: string): Record<string, string> => ({
  NODE_ENV: "production",
  ANALYTICS_SALT_SECRET: randomBytes(16).toString("hex"),
  WEBHOOK_SECRETS_KEY: randomBytes(32).toString("hex"),
  LOG_LEVEL: "error",
  TITLE_FETCH_ENABLED: "false",
  SPOOL_DIR: mkdtempSync(join(tmpdir(), `kurz-bench-${bench}-spool-`)),
});
