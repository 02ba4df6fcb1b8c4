// `node --import tsx packages/contracts/scripts/workspaces-matrix.ts`: rewrites the generated region of
// docs/workspaces.md (between MATRIX_START and MATRIX_END) from the contracts, so that the role table
// and the route table a reader trusts are the ones the route pipeline enforces. A unit test
// (test/workspaces-matrix.unit.test.ts) fails while the doc differs from what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ROUTE_SCOPES } from "../src/route-scopes.ts";
import { ROUTES, type RouteKey } from "../src/routes-all.ts";
import { ROLE_SCOPES, ROLES, type Role, SCOPES, type Scope } from "../src/scopes.ts";

export const MATRIX_START = "<!-- matrix:start -->";
export const MATRIX_END = "<!-- matrix:end -->";
export const MATRIX_COMMAND = "node --import tsx packages/contracts/scripts/workspaces-matrix.ts";
export const DOC_PATH = join(import.meta.dirname, "../../../docs/workspaces.md");

/** Roles from least to most powerful, the order a reader climbs them. */
const CLIMB: readonly Role[] = [...ROLES].reverse();

/** The least powerful role that holds `scope` (every role above it holds it too). */
const lowestRole = (scope: Scope): Role => CLIMB.find((role) => ROLE_SCOPES[role].includes(scope))!;

function roleTable(): string[] {
  return [
    `| scope | ${CLIMB.join(" | ")} |`,
    `|---|${CLIMB.map(() => ":-:").join("|")}|`,
    ...SCOPES.map(
      (scope) =>
        `| \`${scope}\` | ${CLIMB.map((r) => (ROLE_SCOPES[r].includes(scope) ? "✓" : "")).join(" | ")} |`,
    ),
  ];
}

/** What a route record's `auth` lets in, in a reader's words. */
const CREDENTIAL = { public: "none", key: "key or session", session: "session" } as const;

/**
 * One row per route. The older API's table has no credential column: which of its routes also take a
 * session is the gateway's rule (docs/api.md, "Sessions"), not the route record's.
 */
function routeTable(keys: readonly RouteKey[], withCredential: boolean): string[] {
  const cells = (...all: string[]) => `| ${all.filter((c) => c !== "").join(" | ")} |`;
  return [
    cells("route", withCredential ? "credential" : "", "scope needed", "lowest role"),
    cells("---", withCredential ? "---" : "", "---", "---").replaceAll(" ", ""),
    ...keys.map((key) => {
      const { method, path, auth } = ROUTES[key];
      const scope = ROUTE_SCOPES[key];
      return cells(
        `\`${method} ${path}\``,
        withCredential ? CREDENTIAL[auth] : "",
        scope === null ? "—" : `\`${scope}\``,
        auth === "public" ? "anyone" : scope === null ? "any caller" : lowestRole(scope),
      );
    }),
  ];
}

/** The generated region, markers included. */
export function renderMatrix(): string {
  const keys = Object.keys(ROUTES) as RouteKey[];
  const v1 = keys.filter((k) => ROUTES[k].path.startsWith("/api/v1/"));
  const older = keys.filter((k) => !ROUTES[k].path.startsWith("/api/v1/"));
  return [
    MATRIX_START,
    `<!-- Generated from packages/contracts (ROLE_SCOPES, ROUTE_SCOPES, ROUTES): edit those, then run ${MATRIX_COMMAND} -->`,
    "",
    "### Roles and scopes",
    "",
    ...roleTable(),
    "",
    `### Routes of \`/api/v1\` (${v1.length})`,
    "",
    ...routeTable(v1, true),
    "",
    `### Routes of the older \`/api\` (${older.length})`,
    "",
    ...routeTable(older, false),
    "",
    MATRIX_END,
  ].join("\n");
}

/** The region of `doc` between the markers, markers included; null when they are missing. */
export function matrixRegion(doc: string): string | null {
  const start = doc.indexOf(MATRIX_START);
  const end = doc.indexOf(MATRIX_END, start);
  if (start < 0 || end < 0) return null;
  return doc.slice(start, end + MATRIX_END.length);
}

/** `doc` with its region replaced by `region`. */
export function withMatrix(doc: string, region: string): string {
  const current = matrixRegion(doc);
  if (current === null) throw new Error(`docs/workspaces.md has no ${MATRIX_START} … ${MATRIX_END} region`);
  return doc.replace(current, () => region);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const doc = readFileSync(DOC_PATH, "utf8");
  const next = withMatrix(doc, renderMatrix());
  if (next === doc) process.stdout.write("docs/workspaces.md: the matrix is up to date\n");
  else {
    writeFileSync(DOC_PATH, next);
    process.stdout.write("docs/workspaces.md: the matrix is rewritten\n");
  }
}
