// The test files that only import code and call it: no stack, database, Redis, child process, chDB or
// process-wide registration (OpenTelemetry). A whole run gives them one project, "unit", with
// `isolate: false`: a worker runs file after file in one module graph instead of a fresh fork and a
// fresh import of vitest and the workspace per file (~0.5 s of CPU a file; issue 15, decision 0011).
// Their own projects leave them out only when vitest runs from the root (unitFilesOf), so
// `vitest run` inside a package still runs all of its files, each isolated as before.
// Add a file here only if it can share a module graph with the others: no vi.mock, no stubbed globals,
// no module-level state that another file's result depends on.
import { resolve } from "node:path";

const root = import.meta.dirname;

export const UNIT_TEST_FILES = [
  "packages/bus/test/deliver-batch.test.ts",
  "packages/bus/test/kafka-log.test.ts",
  "packages/clickhouse/test/split-statements.test.ts",
  "packages/contracts/test/*.test.ts",
  "packages/db/test/schema-engine-env.test.ts",
  "packages/service-kit/test/client-budget.test.ts",
  "packages/service-kit/test/direct-routes.test.ts",
  "packages/service-kit/test/errors.test.ts",
  "packages/service-kit/test/forward.test.ts",
  "packages/service-kit/test/http.test.ts",
  "packages/service-kit/test/internal-auth.test.ts",
  "packages/service-kit/test/poll-loop.test.ts",
  "packages/service-kit/test/routes.test.ts",
  "packages/service-kit/test/security-headers.test.ts",
  "packages/service-kit/test/session-cookie.test.ts",
  "packages/testing/test/dns.test.ts",
  "packages/testing/test/files-key.test.ts",
  "packages/testing/test/memory-tmpdir.test.ts",
  "packages/testing/test/utc-day-left.test.ts",
  "services/analytics/test/period.test.ts",
  "services/gateway/test/route-table.test.ts",
  "services/management/src/overlays/frame-policy.test.ts",
  "services/management/src/imports/import-rows.test.ts",
  "services/management/src/webhooks/attempt-error.test.ts",
  "services/management/src/security/passwords.test.ts",
  "services/management/test/domain-verification.test.ts",
  "services/management/test/import-file.test.ts",
  "services/management/test/qr-renderer.test.ts",
  "services/redirect/src/click-id.test.ts",
  "services/redirect/src/click-spool.test.ts",
  "services/redirect/src/client-ip.test.ts",
  "services/redirect/src/client-key.test.ts",
  "services/redirect/src/edge-click.test.ts",
  "services/redirect/src/raw-headers.test.ts",
  "services/redirect/src/request-host.test.ts",
  "services/redirect/src/rotator-turns.test.ts",
  "services/redirect/src/turn-writes.test.ts",
];

/** The project directory of a root-relative file: `packages/bus`, `services/redirect`. */
const projectOf = (file: string) => file.split("/").slice(0, 2).join("/");

/**
 * The unit files of the project in `dir` (its vitest.config.ts's directory), relative to it: what that
 * project excludes when the root config runs it, because the "unit" project runs them. Empty when vitest
 * runs from the package's own directory (`pnpm --filter <pkg> test`), which has no "unit" project.
 */
export function unitFilesOf(dir: string): string[] {
  if (resolve(process.cwd()) !== root) return [];
  return UNIT_TEST_FILES.filter((f) => resolve(root, projectOf(f)) === resolve(dir)).map((f) =>
    f.slice(projectOf(f).length + 1),
  );
}

/**
 * The unit files whose projects a run selected (KURZ_VITEST_PROJECTS-style globs: `packages/*`, `infra`,
 * `!services/web`), so that a vitest of services/web alone does not run them too.
 */
export function unitFilesSelected(projects: string[]): string[] {
  const matches = (glob: string, dir: string) =>
    glob === dir ||
    (glob.endsWith("/*") && dir.startsWith(glob.slice(0, -1)) && !dir.slice(glob.length - 1).includes("/"));
  const selected = (dir: string) =>
    projects.some((p) => !p.startsWith("!") && matches(p, dir)) &&
    !projects.some((p) => p.startsWith("!") && matches(p.slice(1), dir));
  return UNIT_TEST_FILES.filter((f) => selected(projectOf(f)));
}
