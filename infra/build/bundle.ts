// `node --import tsx infra/build/bundle.ts [service…]`: bundles services/<service>/src/main.ts into one
// ESM file, services/<service>/dist/main.mjs, with esbuild (every service when none is named). Every
// service runs from its bundle (decision 0001): no TypeScript loader at run time and only
// the code it uses. The bundle stays inside the repository layout it was built in: it reaches files
// and native addons of the workspace by paths relative to itself.
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";
import { SERVICES, type ServiceName } from "./node-flags.ts";

const root = resolve(import.meta.dirname, "../..");

export { nodeFlagsFor, SERVICES, type ServiceName } from "./node-flags.ts";

// Loaded from node_modules at run time instead of bundled: native addons (argon2, chDB's engine, koffi,
// sharp's libvips, which it finds beside its own package), and the OpenTelemetry SDK, which
// service-kit requires lazily only when tracing is on.
export const RUNTIME_EXTERNALS = [
  "@node-rs/argon2",
  "sharp",
  "chdb",
  "koffi",
  "@opentelemetry/sdk-node",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/instrumentation-http",
];

/**
 * Node flags management's admin CLI (dist/cli.mjs) starts with under `./kurz`. A call lasts seconds,
 * and V8's dynamic tier-up spent about 1 s of its ~2.7 s of CPU compiling functions of Prisma's
 * WebAssembly query compiler with TurboFan for the few queries it makes. A tiering budget 500 times
 * V8's keeps them on baseline code unless one runs far longer (docs/benchmarks/2026-12.md: an
 * `accounts:create` 2.8 -> 1.8 s of CPU; a 50,000-row import no slower).
 */
export const CLI_NODE_FLAGS = ["--wasm-tiering-budget=1000000000"];

/** The node arguments that run management's admin CLI with `args`, as `./kurz` and the image run it. */
export const cliNodeArgs = (args: string[]): string[] => [
  ...CLI_NODE_FLAGS,
  bundlePath("management", "cli"),
  ...args,
];

export function bundlePath(service: ServiceName | string, entry = "main"): string {
  return resolve(root, `services/${service}/dist/${entry}.mjs`);
}

// Besides main.mjs: the management image runs its admin CLI and the migrate one-shot without a
// TypeScript loader too (its runtime has production dependencies only); threads start from a bundle
// of their own beside main.mjs (service-kit's module-thread.ts): management's import file threads,
// analytics' GeoIP table.
const EXTRA_ENTRIES: Record<string, Record<string, string>> = {
  management: {
    cli: "services/management/src/cli.ts",
    migrate: "packages/db/scripts/migrate.ts",
    "import-file-thread": "services/management/src/imports/import-file-thread.ts",
  },
  analytics: { "ipv4-table-thread": "services/analytics/src/enrich/ipv4-table-thread.ts" },
};

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * An external is imported by the path it resolves to from the importing file, relative to the bundle:
 * a bare name would be looked up from services/<x>/dist, where pnpm has not linked the packages of
 * the workspace package that uses it (chdb belongs to packages/clickhouse).
 */
function externalsByPath(outdir: string): Plugin {
  const filter = new RegExp(`^(${RUNTIME_EXTERNALS.map(escapeRegExp).join("|")})(/.*)?$`);
  return {
    name: "externals-by-path",
    setup(b) {
      b.onResolve({ filter }, async (args) => {
        if (args.pluginData === "externals-by-path") return undefined;
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: "externals-by-path",
        });
        if (found.errors.length > 0) return { errors: found.errors };
        const path = relative(outdir, found.path);
        return { path: path.startsWith(".") ? path : `./${path}`, external: true };
      });
    },
  };
}

// Spelled in two parts so that this file, which the supervisor's bundle includes, is not rewritten by
// its own plugin (moduleUrls) where it writes these words as text.
const IMPORT_META = ["import", "meta"].join(".");

/**
 * `import.meta.url` and `import.meta.dirname` in a workspace module keep meaning that module's own
 * file and directory (packages/clickhouse finds its migrations next to itself, service-kit resolves the
 * OpenTelemetry SDK from its own dependencies, the supervisor finds the repository's root), computed
 * relative to the bundle so that the built tree can move as a whole.
 */
function moduleUrls(outdir: string): Plugin {
  const META = IMPORT_META;
  return {
    name: "module-urls",
    setup(b) {
      b.onLoad({ filter: /\.(ts|mts|mjs|js)$/ }, async (args) => {
        if (args.path.includes("/node_modules/")) return undefined;
        const { readFile } = await import("node:fs/promises");
        const source = await readFile(args.path, "utf8");
        if (!source.includes(`${META}.url`) && !source.includes(`${META}.dirname`)) return undefined;
        const rel = relative(outdir, args.path);
        const url = `new URL(${JSON.stringify(rel)}, ${META}.url).href`;
        const dir = `__kurzFileURLToPath(new URL(${JSON.stringify(relative(outdir, dirname(args.path)))}, ${META}.url))`;
        return {
          contents: source.replaceAll(`${META}.url`, url).replaceAll(`${META}.dirname`, dir),
          loader: args.path.endsWith("ts") ? "ts" : "js",
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/**
 * A service's entry points: main.ts, memory-bounds (the image's entrypoint computes KURZ_MEMORY_MB's
 * bounds with it, without a TypeScript loader), and its other entries (EXTRA_ENTRIES), by output name.
 */
const entriesOf = (service: string): Record<string, string> => ({
  main: `services/${service}/src/main.ts`,
  "memory-bounds": "infra/build/memory-bounds.ts",
  ...EXTRA_ENTRIES[service],
});

/** Every file bundle(service) writes that something runs: services/<service>/dist/<entry>.mjs. */
export function bundleOutputs(service: ServiceName | string): string[] {
  return Object.keys(entriesOf(service)).map((entry) => bundlePath(service, entry));
}

/** Builds services/<service>/dist/main.mjs (and the service's other entries); returns main's path. */
export async function bundle(service: ServiceName | string): Promise<string> {
  const outfile = bundlePath(service);
  await bundleEntries(
    Object.entries(entriesOf(service)).map(([out, src]) => ({ in: resolve(root, src), out })),
    dirname(outfile),
  );
  return outfile;
}

/**
 * Bundles TypeScript entry points of the workspace into `<outdir>/<out>.mjs`, as the services are
 * bundled. Test fixtures that run in a process of their own use it too (`bundleFixture` in
 * @kurz/testing): a bundle starts with a fraction of the CPU of `node --import tsx`.
 */
export async function bundleEntries(
  entries: { in: string; out: string }[],
  outdir: string,
  /** Packages loaded from node_modules at run time, besides RUNTIME_EXTERNALS. */
  external: string[] = [],
): Promise<void> {
  // Imported here, not at the top: the supervisor's bundle (infra/local/dist/up.mjs) uses this file's
  // paths and flags, and never loads esbuild's API.
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: entries,
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    plugins: [externalsByPath(outdir), moduleUrls(outdir)],
    external,
    // CommonJS dependencies call require(); an ESM bundle has none of its own.
    banner: {
      js: `import { createRequire as __kurzCreateRequire } from 'node:module'; import { fileURLToPath as __kurzFileURLToPath } from 'node:url'; const require = __kurzCreateRequire(${IMPORT_META}.url);`,
    },
    // For `node --enable-source-maps` when a stack trace needs the TypeScript lines; not loaded otherwise.
    sourcemap: "linked",
    logLevel: "warning",
    write: false,
  });
  // Each file replaces the old one in one rename: a process starting during a rebuild (a test stack,
  // another `./kurz up`) reads either the old bundle or the new one, never half of one.
  await mkdir(outdir, { recursive: true });
  await Promise.all(
    result.outputFiles.map(async (file) => {
      const tmp = `${file.path}.${process.pid}.tmp`;
      await writeFile(tmp, file.path.endsWith(".mjs") ? asciiOnly(file.text) : file.contents);
      await rename(tmp, file.path);
    }),
  );
}

/**
 * The bundle with every character above U+007F written as a \u escape. V8 keeps a script's source in
 * its heap for as long as the script lives, one byte a character only when every character fits in
 * Latin-1; one `’` in a dependency's comment made management's 14 MB bundle a 28 MB two-byte string
 * (docs/benchmarks/2026-12.md). esbuild escapes strings, cooked templates and identifiers itself (its
 * default `charset: "ascii"`) and leaves the rest: comments, where an escape is only text, and regular
 * expressions, where `\uXXXX` (a surrogate pair above U+FFFF) matches the character it replaces. The
 * one place it would not mean the same is a tagged template's raw text (String.raw`’`), which no
 * bundled code has: the bundles' remaining non-ASCII characters are all in comments. Lines stay lines,
 * so the source map holds.
 */
export const asciiOnly = (code: string): string =>
  code.replace(/[^\0-\x7f]/gu, (ch) => {
    let escaped = "";
    for (let i = 0; i < ch.length; i++) escaped += `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`;
    return escaped;
  });

/** Bundles every service at once (~1–3 s on two cores). */
export async function bundleAll(services: readonly string[] = SERVICES): Promise<Record<string, string>> {
  const paths = await Promise.all(services.map((s) => bundle(s)));
  return Object.fromEntries(services.map((s, i) => [s, paths[i]!]));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const services = process.argv.slice(2);
  for (const s of services) {
    if (!(SERVICES as readonly string[]).includes(s)) {
      console.error(`usage: node --import tsx infra/build/bundle.ts [${SERVICES.join("|")}]…`);
      process.exit(2);
    }
  }
  const built = await bundleAll(services.length > 0 ? services : SERVICES);
  for (const path of Object.values(built)) console.log(path);
}
