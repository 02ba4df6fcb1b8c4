// `pnpm --filter @kurz/sdk build`: the SDK as a package that stands alone. Its source reads the route
// records of @kurz/contracts (types with zod's help, and the route table at run time); the build
// writes both out as plain code, so dist/ needs neither contracts nor zod:
//   1. the route table (src/route-table.ts, evaluated here) as a JSON literal;
//   2. RouteTypes (src/route-types.ts) as plain declarations, printed by the TypeScript checker;
//   3. that staged source bundled by esbuild as ESM (dist/esm) and CommonJS (dist/cjs), and its
//      declarations beside each (.d.ts and .d.cts);
//   4. the package packed, dist/kurz-sdk-<version>.tgz.
import { execFile } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { build, type Plugin } from "esbuild";
import ts from "typescript";
import { ROUTE_TABLE } from "./src/route-table.ts";

const run = promisify(execFile);
const here = import.meta.dirname;
const stage = join(here, ".build");
const dist = join(here, "dist");
const ROUTE_MEMBERS = ["method", "path", "params", "query", "body", "response"] as const;

/** RouteTypes with every member printed in full: no name left that points into contracts or zod. */
export function printRouteTypes(probeDir: string): string {
  const probe = join(probeDir, "probe.ts");
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  };
  const program = ts.createProgram([probe], options);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(probe);
  const alias = source?.statements.find(ts.isTypeAliasDeclaration);
  if (!alias) throw new Error("probe.ts declares no type");
  const routes = checker.getTypeAtLocation(alias.name);
  const flags =
    ts.TypeFormatFlags.NoTruncation |
    ts.TypeFormatFlags.InTypeAlias |
    ts.TypeFormatFlags.UseStructuralFallback |
    ts.TypeFormatFlags.WriteArrayAsGenericType;
  const lines = routes.getProperties().map((route) => {
    const routeType = checker.getTypeOfSymbolAtLocation(route, alias);
    const members = ROUTE_MEMBERS.map((member) => {
      const symbol = routeType.getProperty(member);
      if (!symbol) throw new Error(`${route.name} has no ${member}`);
      const text = checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, alias), undefined, flags);
      return `    ${member}: ${text};`;
    });
    return `  ${route.name}: {\n${members.join("\n")}\n  };`;
  });
  return [
    "// Written by build.ts from the route records of @kurz/contracts; not edited by hand.",
    "export type UploadBody = Blob | ArrayBuffer | Uint8Array | string;",
    "export type RouteTypes = {",
    ...lines,
    "};",
    "",
  ].join("\n");
}

/** src/route-table.ts as the data it computes: what a bundle of the SDK carries instead of contracts. */
export function routeTableModule(): string {
  return [
    "// Written by build.ts from the route records of @kurz/contracts.",
    'import type { RouteInfo } from "./route-info.ts";',
    `export const ROUTE_TABLE: Readonly<Record<string, RouteInfo>> = ${JSON.stringify(ROUTE_TABLE)};`,
    "",
  ].join("\n");
}

/** An esbuild plugin that bundles the route table as data (for a program that bundles the SDK's source). */
export function routeTablePlugin(): Plugin {
  const contents = routeTableModule();
  return {
    name: "kurz-route-table",
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /[\\/]sdk[\\/]src[\\/]route-table\.ts$/ }, () => ({
        contents,
        loader: "ts",
      }));
    },
  };
}

async function stageSource(): Promise<void> {
  await rm(stage, { recursive: true, force: true });
  await cp(join(here, "src"), stage, { recursive: true });
  await writeFile(
    join(stage, "probe.ts"),
    'import type { RouteTypes } from "./route-types.ts";\nexport type Probe = RouteTypes;\n',
  );
  const routeTypes = printRouteTypes(stage);
  await rm(join(stage, "probe.ts"));
  await writeFile(join(stage, "route-types.ts"), routeTypes);
  await writeFile(join(stage, "route-table.ts"), routeTableModule());
}

async function bundle(): Promise<void> {
  const common = {
    entryPoints: [join(stage, "index.ts")],
    bundle: true,
    platform: "neutral" as const,
    target: "es2022",
    legalComments: "none" as const,
    logLevel: "warning" as const,
  };
  await build({ ...common, format: "esm", outfile: join(dist, "esm/index.js") });
  await build({ ...common, format: "cjs", outfile: join(dist, "cjs/index.cjs") });
}

/**
 * The staged source's declarations, file by file (ts.transpileDeclaration: the source keeps the
 * explicit types isolatedDeclarations asks for, so no type-check is needed here; the pack test
 * type-checks them as a user's project does), as .d.ts (ESM) and .d.cts (CommonJS).
 */
async function declarations(): Promise<void> {
  const relative = /(from\s+["']\.\/[^"']+)\.ts(["'])/g;
  for (const file of (await readdir(stage)).filter((name) => name.endsWith(".ts"))) {
    const { outputText, diagnostics } = ts.transpileDeclaration(await readFile(join(stage, file), "utf8"), {
      fileName: file,
      compilerOptions: { isolatedDeclarations: true, allowImportingTsExtensions: true },
      reportDiagnostics: true,
    });
    if (diagnostics && diagnostics.length > 0) {
      throw new Error(
        `${file}: ${diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ")}`,
      );
    }
    const name = file.replace(/\.ts$/, "");
    await writeFile(join(dist, "esm", `${name}.d.ts`), outputText.replace(relative, "$1.js$2"));
    await writeFile(join(dist, "cjs", `${name}.d.cts`), outputText.replace(relative, "$1.cjs$2"));
  }
}

/**
 * Builds dist/ and packs it: resolves to the tarball's path, dist/kurz-sdk-<version>.tgz (outside
 * the package's `files`, so a tarball never packs an older one). pnpm, not npm, packs: it applies
 * `publishConfig`, whose `exports` point at dist/ rather than the source.
 */
export async function buildSdk(): Promise<string> {
  await rm(dist, { recursive: true, force: true });
  await mkdir(join(dist, "esm"), { recursive: true });
  await mkdir(join(dist, "cjs"), { recursive: true });
  await stageSource();
  await bundle();
  await declarations();
  await rm(stage, { recursive: true, force: true });
  const { stdout } = await run("pnpm", ["pack", "--pack-destination", dist], { cwd: here });
  const tarball = stdout.trim().split("\n").pop() ?? "";
  if (!tarball.endsWith(".tgz")) throw new Error(`pnpm pack named no tarball: ${stdout}`);
  return tarball;
}

if (resolve(process.argv[1] ?? "") === resolve(here, "build.ts")) await buildSdk();
