// `node --import tsx infra/build/bundle.ts <service>`: bundles services/<service>/src/main.ts into one
// ESM file, services/<service>/dist/main.mjs, with esbuild. The redirect runs from its bundle
// (decision 0008): no TypeScript loader at run time and only the code it uses, ~35 MB less RSS.
import { resolve } from "node:path";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "../..");

// Loaded from node_modules at run time instead of bundled: a native addon, and the OpenTelemetry SDK,
// which service-kit requires lazily only when tracing is on (the service declares it as a dependency
// so that it resolves from dist/).
export const RUNTIME_EXTERNALS = [
  "@node-rs/argon2",
  "@opentelemetry/sdk-node",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/instrumentation-http",
];

/**
 * Node flags a bundled service starts with. 8 MB semi-spaces instead of V8's 16 MB: under
 * `./kurz bench redirect` the redirect's peak RSS fell from ~198 to ~183 MB at the same throughput and
 * p99 (docs/benchmarks.md). V8 sizes the young generation at start-up, so unlike
 * HEAP_GROWING_PERCENT this cannot be set from inside the process. infra/docker/entrypoint.sh repeats it.
 */
export const BUNDLE_NODE_FLAGS = ["--max-semi-space-size=8"];

export async function bundle(service: string): Promise<string> {
  const outfile = resolve(root, `services/${service}/dist/main.mjs`);
  await build({
    entryPoints: [resolve(root, `services/${service}/src/main.ts`)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: RUNTIME_EXTERNALS,
    // CommonJS dependencies call require(); an ESM bundle has none of its own.
    banner: {
      js: "import { createRequire as __kurzCreateRequire } from 'node:module'; const require = __kurzCreateRequire(import.meta.url);",
    },
    // For `node --enable-source-maps` when a stack trace needs the TypeScript lines; not loaded otherwise.
    sourcemap: "linked",
    logLevel: "warning",
  });
  return outfile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const service = process.argv[2];
  if (!service) {
    console.error("usage: node --import tsx infra/build/bundle.ts <service>");
    process.exit(2);
  }
  console.log(await bundle(service));
}
