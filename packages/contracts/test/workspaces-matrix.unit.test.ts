import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  DOC_PATH,
  MATRIX_COMMAND,
  MATRIX_END,
  MATRIX_START,
  matrixRegion,
  renderMatrix,
  withMatrix,
} from "../scripts/workspaces-matrix.ts";
import { ROUTE_SCOPES } from "../src/route-scopes.ts";
import { ROUTES } from "../src/routes-all.ts";

describe("docs/workspaces.md's role and route matrix", () => {
  it("is what the contracts say", () => {
    const region = matrixRegion(readFileSync(DOC_PATH, "utf8"));
    expect(region, `docs/workspaces.md lacks its ${MATRIX_START} … ${MATRIX_END} region`).not.toBeNull();
    expect(region, `docs/workspaces.md's matrix is out of date: run ${MATRIX_COMMAND}`).toBe(renderMatrix());
  });

  it("lists every route once, with the scope route-scopes.ts gives it", () => {
    const matrix = renderMatrix();
    for (const [key, def] of Object.entries(ROUTES)) {
      const rows = matrix.split("\n").filter((line) => line.startsWith(`| \`${def.method} ${def.path}\` |`));
      expect(rows, key).toHaveLength(1);
      const scope = ROUTE_SCOPES[key as keyof typeof ROUTES];
      if (scope !== null) expect(rows[0], key).toContain(`\`${scope}\``);
    }
  });

  it("replaces only the region", () => {
    const doc = `before\n${MATRIX_START}\nold\n${MATRIX_END}\nafter\n`;
    expect(withMatrix(doc, `${MATRIX_START}\nnew $& $1\n${MATRIX_END}`)).toBe(
      `before\n${MATRIX_START}\nnew $& $1\n${MATRIX_END}\nafter\n`,
    );
    expect(() => withMatrix("no markers", "x")).toThrow(/region/);
  });
});
