// A private redis-server for fault tests, so stopping it never disturbs the shared one. With `persist`
// it keeps an append-only file (fsync always) in a temporary directory, as a Redis carrying the bus
// must: events written before a stop are still there after the restart.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getFreePort, waitFor } from "@kurz/testing";
import { Redis } from "ioredis";

export interface RedisServer {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

export async function startRedisServer(opts: { persist?: boolean } = {}): Promise<RedisServer> {
  const port = await getFreePort();
  const dir = mkdtempSync(join(tmpdir(), "kurz-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir];
  args.push(...(opts.persist ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"]));
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;

  const start = async () => {
    child = spawn("redis-server", args, { stdio: "ignore" });
    await waitFor(
      async () => {
        const probe = new Redis(url, {
          lazyConnect: true,
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        probe.on("error", () => {});
        try {
          await probe.connect();
          return (await probe.ping()) === "PONG";
        } finally {
          probe.disconnect();
        }
      },
      { timeoutMs: 10_000, description: `redis-server on port ${port}` },
    );
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once("exit", resolve));
    c.kill("SIGTERM");
    await exited;
    child = null;
  };
  await start();
  return {
    url,
    port,
    start,
    stop,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
