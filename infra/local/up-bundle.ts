// `node --import tsx infra/local/up-bundle.ts`: bundles the supervisor (up.ts, what `./kurz up` runs)
// into infra/local/dist/up.mjs, as the services are bundled (infra/build/bundle.ts). Run from its
// bundle, the supervisor holds neither tsx's compiler nor its esbuild service process: `./kurz` rebuilds
// the bundle first when one of its sources is newer (infra/local, infra/build, infra/observability).
import { resolve } from "node:path";
import { bundleEntries } from "../build/bundle.ts";

const SUPERVISOR_BUNDLE_DIR = resolve(import.meta.dirname, "dist");

// esbuild's API: bundle.ts imports it only when it builds, which the supervisor leaves to a child.
await bundleEntries([{ in: resolve(import.meta.dirname, "up.ts"), out: "up" }], SUPERVISOR_BUNDLE_DIR, [
  "esbuild",
]);
