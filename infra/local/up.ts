// `./kurz up`: the whole stack on one machine. Starts a persistent Redis under ./.data (it carries the
// bus, so it must keep unconsumed events across restarts), migrates Postgres, starts the four services,
// waits until each is ready, prints the URLs, and on Ctrl-C stops everything in reverse order. A process
// that dies is restarted with backoff while the others keep serving (supervisor.ts).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { BUNDLE_NODE_FLAGS, bundlePath } from "../build/bundle.ts";
import { Supervised } from "./supervisor.ts";

const root = resolve(import.meta.dirname, "../..");
const dataDir = resolve(root, ".data");
const env = process.env;
const redisPort = Number(env.KURZ_REDIS_PORT ?? 6380);
const ownRedis = !env.REDIS_URL;
const shared: Record<string, string> = {
  REDIS_URL: env.REDIS_URL ?? `redis://127.0.0.1:${redisPort}`,
  DATABASE_URL: env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/kurz",
  PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? "http://127.0.0.1:8080",
  CLICKHOUSE_PATH: env.CLICKHOUSE_PATH ?? resolve(dataDir, "clickhouse"),
  SPOOL_DIR: env.SPOOL_DIR ?? resolve(dataDir, "spool"),
  // Every internal credential derives from this secret. Unless one is given, each run makes its own,
  // so the public development default is never in use (docs/security.md).
  INTERNAL_TOKEN: env.INTERNAL_TOKEN || randomBytes(32).toString("hex"),
};
// Only the public origin listens where HOST says (loopback unless set); the internal services are
// reachable from this machine only, whatever HOST is.
const INTERNAL_HOST = "127.0.0.1";
// The redirect service owns the public port: short links pay no Node hop, and it pipes /api, /docs and
// /c/ to the gateway on an internal port (docs/decisions/0006).
const publicPort = Number(new URL(shared.PUBLIC_BASE_URL!).port || 80);
const GATEWAY_PORT = 8084;
const services: { name: string; port: number; env: Record<string, string> }[] = [
  { name: "management", port: 8081, env: { HOST: INTERNAL_HOST } },
  { name: "analytics", port: 8083, env: { HOST: INTERNAL_HOST } },
  { name: "gateway", port: GATEWAY_PORT, env: { HOST: INTERNAL_HOST, REDIRECT_URL: "", TRUST_PROXY: "1" } },
  {
    name: "redirect",
    port: publicPort,
    env: { API_UPSTREAM_URL: `http://127.0.0.1:${GATEWAY_PORT}`, TRUST_PROXY: "false" },
  },
];
const colors = [36, 35, 33, 32, 34];
const children: Supervised[] = [];
let stopping = false;

function prefixOutput(name: string, proc: ChildProcess, color: number): void {
  const tag = `\x1b[${color}m${name.padEnd(10)}\x1b[0m| `;
  for (const stream of [proc.stdout, proc.stderr]) {
    let buf = "";
    stream?.on("data", (chunk: Buffer) => {
      buf += chunk.toString();
      const lines = buf.split("\n");
      buf = lines.pop() ?? "";
      for (const line of lines) process.stdout.write(`${tag}${line}\n`);
    });
  }
}

function start(name: string, cmd: string, args: string[], extraEnv: Record<string, string>, color: number) {
  const supervised = new Supervised({
    name,
    spawn: () => {
      const proc = spawn(cmd, args, {
        cwd: root,
        env: { ...env, ...shared, ...extraEnv },
        stdio: ["ignore", "pipe", "pipe"],
      });
      prefixOutput(name, proc, color);
      return proc;
    },
    say: (line) => console.error(`\x1b[1m${line}\x1b[0m`),
  });
  supervised.start();
  children.push(supervised);
  return supervised;
}

async function waitReady(name: string, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopping) return;
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready at ${url} after ${timeoutMs / 1000}s`);
}

async function stopAll(code: number): Promise<never> {
  stopping = true;
  for (const child of [...children].reverse()) await child.stop();
  process.exit(code);
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  mkdirSync(dataDir, { recursive: true });

  if (ownRedis) {
    const ping = spawnSync("redis-cli", ["-p", String(redisPort), "ping"], { encoding: "utf8" });
    if (ping.stdout?.trim() === "PONG") {
      console.log(`Redis already answers on port ${redisPort}; using it`);
    } else {
      mkdirSync(resolve(dataDir, "redis"), { recursive: true });
      const redisArgs = [
        "--bind",
        "127.0.0.1",
        "--port",
        String(redisPort),
        "--dir",
        resolve(dataDir, "redis"),
      ];
      redisArgs.push("--appendonly", "yes", "--appendfsync", "everysec", "--save", "");
      start("redis", "redis-server", redisArgs, {}, 90);
      await waitForRedis();
    }
  }

  // Every service runs from its esbuild bundle (decisions 0008, 0016), rebuilt on each start so that
  // a source change is live after a restart. Built by a child process: the supervisor then never holds
  // the bundles in memory (measured: 164 MB RSS when it built them itself, see docs/benchmarks.md).
  const started = Date.now();
  await runChild("building the service bundles", [
    "--import",
    "tsx",
    "infra/build/bundle.ts",
    ...services.map((s) => s.name),
  ]);
  console.log(`built the service bundles in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The dashboard's static files (services/web/dist), which the gateway serves; rebuilt only when its
  // sources are newer (infra/build/web.ts).
  await runChild("building the dashboard", ["--import", "tsx", "infra/build/web.ts"]);

  // Migrations run in a child process from management's bundle, as the image's migrate one-shot does:
  // the supervisor stays small because it never loads the database packages itself.
  console.log("applying database migrations");
  await runChild("database migrations", [bundlePath("management", "migrate")], {
    DATABASE_URL: shared.DATABASE_URL!,
  });
  for (const [i, s] of services.entries()) {
    start(
      s.name,
      process.execPath,
      [...BUNDLE_NODE_FLAGS, bundlePath(s.name)],
      { PORT: String(s.port), ...s.env },
      colors[i]!,
    );
  }
  // The redirect answers readiness on its operational listener only (OPS_PORT, default 9082).
  const readyPort = (s: { name: string; port: number }) =>
    s.name === "redirect" ? Number(env.OPS_PORT || 9082) : s.port;
  await Promise.all(services.map((s) => waitReady(s.name, `http://127.0.0.1:${readyPort(s)}/ready`)));

  console.log(`
Kurz is up.
  public origin (API + short links)  ${shared.PUBLIC_BASE_URL}
  API                                ${shared.PUBLIC_BASE_URL}/api/v1   docs: ${shared.PUBLIC_BASE_URL}/docs
  data                               ${dataDir}
Create an account and its first API key:
  ./kurz accounts:create --email you@example.com
Press Ctrl-C to stop.`);
}

/** Runs node with `args` to completion; its errors go to this terminal. */
function runChild(what: string, args: string[], extraEnv: Record<string, string> = {}): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(process.execPath, args, {
      cwd: root,
      env: { ...env, ...extraEnv },
      stdio: ["ignore", "ignore", "inherit"],
    });
    proc.on("error", reject);
    proc.on("exit", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${what} failed (exit ${code})`)),
    );
  });
}

async function waitForRedis(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = spawnSync("redis-cli", ["-p", String(redisPort), "ping"], { encoding: "utf8" });
    if (r.stdout?.trim() === "PONG") return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`Redis did not start on port ${redisPort}`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  void stopAll(1);
});
