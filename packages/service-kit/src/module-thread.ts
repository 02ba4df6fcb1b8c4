// A worker thread that runs one of a service's own modules. A running service is its esbuild bundle
// (infra/build/bundle.ts), which builds each thread module into a bundle of its own beside main.mjs;
// tests, benches and `node --import tsx` run the TypeScript source, where the thread registers tsx's
// ESM loader (tsx/esm/api, whose ESM build sits beside tsx/esm) before it imports the module.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

export interface ModuleThread {
  /** The thread module's bundle name, beside the running bundle (e.g. `import-file-thread.mjs`). */
  built: string;
  /** The TypeScript module, for a process that runs from source. */
  source: URL;
  workerData?: Record<string, unknown>;
}

export function startModuleThread({ built, source, workerData = {} }: ModuleThread): Worker {
  const script = process.argv[1];
  const bundled = script === undefined ? undefined : resolve(dirname(script), built);
  if (bundled !== undefined && existsSync(bundled)) return new Worker(bundled, { workerData });
  const tsxEsm = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm"));
  return new Worker(
    // Dynamic imports only: the evaluated code is CommonJS or a module as the process's
    // --input-type says, and both have import().
    `import("node:worker_threads")
       .then(({ workerData }) => import(workerData.tsxApi).then(({ register }) => {
         register();
         return import(workerData.source);
       }))
       .catch((err) => { setImmediate(() => { throw err; }); });`,
    {
      eval: true,
      workerData: { ...workerData, tsxApi: new URL("./api/index.mjs", tsxEsm).href, source: source.href },
    },
  );
}
