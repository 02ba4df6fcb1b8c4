// What keeps a stack test out of the unit tier (vitest.unit.ts): the files named `*.unit.test.ts` run
// one after another in a single module graph, so each must only import code and call it. A unit file
// breaks the rule when it reaches, by its own imports or through the helpers it imports (a test
// helper beside it, any module of packages/testing), a module that starts or registers something
// outside the file: a stack, a database, Redis, a child process, chDB or OpenTelemetry; or when it
// replaces modules or globals (vi.mock, vi.stubGlobal), which would leak into the files after it.
// Imports of product code (a service's or package's src) are not followed: importing them starts
// nothing, and a test must call them with a stack's addresses to reach one.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const root = resolve(import.meta.dirname, "../../..");
const testingSrc = resolve(import.meta.dirname);

/** Modules a unit file may not reach, with what they stand for. */
const FORBIDDEN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^@kurz\/testing\/stack$|\/(stack|in-process)\.ts$/, "a stack"],
  [/^@kurz\/db$/, "the database"],
  [/^(pg|@prisma\/.*)$/, "the database"],
  [/^ioredis$/, "Redis"],
  [/^(node:)?(child_process|cluster)$/, "a child process"],
  [/^(chdb|@kurz\/clickhouse)$/, "chDB"],
  [/^@opentelemetry\//, "OpenTelemetry"],
  [/^@kurz\/bus\/testing$/, "a Kafka broker"],
];

const REPLACES = new Set(["mock", "doMock", "stubGlobal", "stubEnv"]);

/** Every `*.unit.test.ts` under the repository, relative to it. */
export function unitTestFiles(dir = root): string[] {
  const skip = new Set(["node_modules", ".data", "dist", ".git", "generated"]);
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory() && !skip.has(e.name) && !e.name.startsWith(".")) walk(join(d, e.name));
      else if (e.isFile() && e.name.endsWith(".unit.test.ts")) out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

/** The module specifiers a file imports at run time (type-only imports left out), and its vi calls that replace one. */
function scan(source: string, file: string): { imports: string[]; replaces: string[] } {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest);
  const out: string[] = [];
  const replaces: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) && !n.importClause?.isTypeOnly && ts.isStringLiteral(n.moduleSpecifier))
      out.push(n.moduleSpecifier.text);
    else if (
      ts.isExportDeclaration(n) &&
      !n.isTypeOnly &&
      n.moduleSpecifier &&
      ts.isStringLiteral(n.moduleSpecifier)
    )
      out.push(n.moduleSpecifier.text);
    else if (
      ts.isCallExpression(n) &&
      n.expression.kind === ts.SyntaxKind.ImportKeyword &&
      n.arguments[0] &&
      ts.isStringLiteral(n.arguments[0])
    )
      out.push(n.arguments[0].text);
    else if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      n.expression.expression.getText(sf) === "vi" &&
      REPLACES.has(n.expression.name.text)
    )
      replaces.push(n.expression.name.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { imports: out, replaces };
}

/** The file a specifier names when it is one to follow: a test helper or a module of packages/testing. */
function followed(from: string, specifier: string): string | undefined {
  let file: string | undefined;
  if (specifier.startsWith(".")) file = resolve(dirname(from), specifier);
  else if (specifier === "@kurz/testing" || specifier.startsWith("@kurz/testing/")) {
    const exports = JSON.parse(readFileSync(join(testingSrc, "../package.json"), "utf8")).exports as Record<
      string,
      string
    >;
    const entry = exports[`.${specifier.slice("@kurz/testing".length)}`];
    if (entry) file = resolve(testingSrc, "..", entry);
  }
  if (!file || !existsSync(file)) return undefined;
  const inTesting = file.startsWith(testingSrc + sep);
  const productCode = file.split(sep).includes("src");
  return inTesting || !productCode ? file : undefined;
}

/**
 * Why `file` (a path, or its text as `source`) may not run in the unit tier: one line per reason,
 * naming the import chain that reaches a forbidden module. Empty when it may.
 */
export function unitTierViolations(file: string, source = readFileSync(file, "utf8")): string[] {
  const problems: string[] = [];
  for (const call of scan(source, file).replaces)
    problems.push(`calls vi.${call}, which would reach the files run after it`);
  const seen = new Set([file]);
  const queue: Array<{ file: string; source: string; via: string[] }> = [{ file, source, via: [] }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const specifier of scan(next.source, next.file).imports) {
      const chain = [...next.via, specifier];
      const hit = FORBIDDEN.find(([pattern]) => pattern.test(specifier));
      if (hit) {
        problems.push(`imports ${hit[1]} (${chain.join(" -> ")})`);
        continue;
      }
      const helper = followed(next.file, specifier);
      if (helper && !seen.has(helper)) {
        seen.add(helper);
        queue.push({ file: helper, source: readFileSync(helper, "utf8"), via: chain });
      }
    }
  }
  return problems;
}
