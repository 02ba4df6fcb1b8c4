// `pnpm --filter @kurz/cli build`: the user CLI as one file, dist/kurz.mjs, which `./kurz` runs (and
// rebuilds first when a source is newer). Bundled with the SDK's route table as data, a call starts
// in a fraction of the time the TypeScript source takes to load (the route records and zod).
import { resolve } from "node:path";
import { routeTablePlugin } from "@kurz/sdk/build";
import { build } from "esbuild";

const here = import.meta.dirname;
export const CLI_BUNDLE = resolve(here, "dist", "kurz.mjs");

export async function buildCli(): Promise<void> {
  await build({
    entryPoints: [resolve(here, "src", "bin.ts")],
    outfile: CLI_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    legalComments: "none",
    logLevel: "warning",
    plugins: [routeTablePlugin()],
  });
}

if (resolve(process.argv[1] ?? "") === resolve(here, "build.ts")) await buildCli();
