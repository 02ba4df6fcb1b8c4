// The local edge (localEdgeConfig) under Debian's nginx for a test: its configuration written to a
// temporary prefix, nginx started on free loopback ports, ready once its health answer is 200.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getFreePort, waitFor } from "@kurz/testing";
import { type LocalEdgeOptions, localEdgeConfig } from "./edge-config.ts";

export const NGINX = "/usr/sbin/nginx";
/** Whether this machine has Debian's nginx (the tests that need it skip without). */
export const hasNginx = existsSync(NGINX);

export interface TestEdge {
  /** The public origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops nginx (waiting for it to exit) and removes its prefix. */
  stop(): Promise<void>;
}

/** Starts the edge in front of the upstreams given; the rest of its options are its own. */
export async function startTestEdge(
  upstreams: Pick<LocalEdgeOptions, "gateway" | "redirect" | "internal">,
): Promise<TestEdge> {
  const [publicPort, healthPort] = [await getFreePort(), await getFreePort()];
  const prefix = mkdtempSync(join(tmpdir(), "kurz-edge-"));
  // nginx's workers run as an unprivileged user when it is started as root: they must reach the prefix.
  chmodSync(prefix, 0o755);
  const conf = join(prefix, "nginx.conf");
  writeFileSync(
    conf,
    localEdgeConfig({ publicHost: "127.0.0.1", publicPort, healthPort, prefix, ...upstreams }),
  );
  const edge: ChildProcess = spawn(NGINX, ["-p", prefix, "-c", conf, "-e", "stderr", "-g", "daemon off;"], {
    stdio: "ignore",
  });
  const stop = async () => {
    if (edge.exitCode === null && edge.signalCode === null) {
      const exited = once(edge, "exit");
      edge.kill("SIGTERM");
      await exited;
    }
    rmSync(prefix, { recursive: true, force: true });
  };
  try {
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${healthPort}/health`).then(
          (r) => r.ok,
          () => false,
        ),
      { timeoutMs: 10_000, description: "nginx's health answer" },
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { origin: `http://127.0.0.1:${publicPort}`, stop };
}
