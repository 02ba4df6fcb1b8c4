// The process stack runs every service from its esbuild bundle, as `./kurz up` and the images do
// (docs/decisions/0001-runtime-layout-and-local-mode.md): closer to production, and each boot is
// about half the CPU of a tsx one. Bundles are rebuilt when any source they are made from is newer
// (infra/build/fresh.ts, which the admin CLI uses too), once per change however many test files ask
// at the same time.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { bundleEntries, bundlePath, cliNodeArgs, nodeFlagsFor } from "../../../infra/build/bundle.ts";
import { ensureFreshBundles } from "../../../infra/build/fresh.ts";

export { bundlePath, cliNodeArgs, nodeFlagsFor };

let checked: Promise<void> | undefined;

/**
 * Makes sure services/<x>/dist holds bundles built from the current sources: builds those whose
 * sources are newer (one builder at a time across the test workers). Checked once per test file.
 */
export function ensureBundles(): Promise<void> {
  checked ??= ensureFreshBundles().then(
    () => undefined,
    (err: unknown) => {
      checked = undefined; // a failed build (e.g. a syntax error being fixed) is retried by the next stack
      throw err;
    },
  );
  return checked;
}

const fixtures = new Map<string, Promise<string>>();

/**
 * A test fixture that runs in processes of its own (e.g. a consumer a test kills and restarts), bundled
 * once per test file as the services are: each start then costs ~0.5 s of CPU where
 * `node --import tsx <fixture>.ts` would compile the workspace again, ~2.4 s each. The bundle
 * goes to a temporary directory removed when the test process exits; returns its path.
 */
export function bundleFixture(entry: string): Promise<string> {
  let built = fixtures.get(entry);
  if (!built) {
    const outdir = mkdtempSync(join(tmpdir(), "kurz-fixture-"));
    process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
    const out = basename(entry).replace(/\.[mc]?ts$/, "");
    built = bundleEntries([{ in: resolve(entry), out }], outdir).then(() => join(outdir, `${out}.mjs`));
    fixtures.set(entry, built);
  }
  return built;
}
