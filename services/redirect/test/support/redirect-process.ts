// Boots the redirect service alone (real process, real Redis and bus) for tests that need to control
// what is around it: its own Redis server, a management that goes away, a spool directory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getFreePort, type StartedProcess, startProcess } from "@kurz/testing";
import { ensureBundles, nodeFlagsFor } from "@kurz/testing/bundles";

const root = resolve(import.meta.dirname, "../../../..");

export interface RedirectProcess {
  url: string;
  /** The operational listener: /health, /ready, /metrics (never on the public port). */
  opsUrl: string;
  proc: StartedProcess;
  env: Record<string, string>;
}

/** The redirect as `./kurz up` and the image run it: the esbuild bundle (decision 0001). */
export const BUNDLE = "services/redirect/dist/main.mjs";

/**
 * Boots the redirect from its bundle, rebuilt first when a source is newer (ensureBundles); with
 * `bundled: false`, from source through tsx.
 */
export async function bootRedirect(
  env: Record<string, string>,
  opts: { bundled?: boolean } = {},
): Promise<RedirectProcess> {
  const bundled = opts.bundled ?? true;
  if (bundled) await ensureBundles();
  // A restart passes the previous env back: same port, so the same spool file.
  const port = env.PORT ? Number(env.PORT) : await getFreePort();
  const opsPort = env.OPS_PORT ? Number(env.OPS_PORT) : await getFreePort();
  const full: Record<string, string> = {
    LOG_LEVEL: "warn",
    SPOOL_DIR: mkdtempSync(join(tmpdir(), "kurz-spool-")),
    ...env,
    PORT: String(port),
    OPS_PORT: String(opsPort),
  };
  const proc = await startProcess({
    cmd: process.execPath,
    args: bundled
      ? [...nodeFlagsFor("redirect"), BUNDLE]
      : ["--import", "tsx", "services/redirect/src/main.ts"],
    cwd: root,
    env: full,
    // /health, not /ready: some tests boot it while the bus is deliberately down.
    readyUrl: `http://127.0.0.1:${opsPort}/health`,
    readyTimeoutMs: 60_000,
  });
  return { url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}`, proc, env: full };
}

/** The redirect's /metrics (on its operational listener) as numbers. */
export async function metrics(redirect: Pick<RedirectProcess, "opsUrl">): Promise<Record<string, number>> {
  const text = await (await fetch(`${redirect.opsUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split("\n")) {
    const m = /^(\w+) (\d+)$/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}
