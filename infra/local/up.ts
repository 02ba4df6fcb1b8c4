// `./kurz up`: the whole stack on one machine. Starts a persistent Redis under ./.data (it carries the
// bus, so it must keep unconsumed events across restarts), migrates Postgres, starts the four services,
// waits until each is ready, prints the URLs, and on Ctrl-C stops everything in reverse order. A process
// that dies is restarted with backoff while the others keep serving (supervisor.ts).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { bundlePath, nodeFlagsFor } from "../build/bundle.ts";
import { memoryBoundsFor, memoryPlanFrom } from "../build/memory.ts";
import { prometheusConfig } from "../observability/scrape-config.ts";
import { localEdgeConfig } from "./edge-config.ts";
import {
  localBasePort,
  localDataDir,
  localRedisPort,
  localServicePorts,
  localStackEnv,
} from "./stack-env.ts";
import { Supervised } from "./supervisor.ts";

const SERVICES = ["management", "analytics", "gateway", "redirect"] as const;
const NGINX = "/usr/sbin/nginx";

const root = resolve(import.meta.dirname, "../..");
const env = process.env;
const { scale, basePort, observability } = parseArgs(process.argv.slice(2));
// KURZ_MEMORY_MB shared out as each service's bounds (infra/build/memory.ts); refused before anything
// starts when it is too low to run.
const memory = ((plan) => {
  if (!("refused" in plan)) return plan;
  console.error(`kurz up: ${plan.refused}`);
  process.exit(2);
})(memoryPlanFrom(env.KURZ_MEMORY_MB));
const scaled = Object.values(scale).some((n) => n > 1);
const dataDir = localDataDir(env);
const runDir = resolve(dataDir, "run");
const redisPort = localRedisPort(env);
// On unless KURZ_SPLICE=0: API connections through the public origin are spliced to the gateway
// (decision 0038, "On by default again").
const splice = env.KURZ_SPLICE !== "0";
const ownRedis = !env.REDIS_URL;
// Ports from one base (default 8080), so that a test can run a whole stack on free ports:
//   base      public origin          base+1  management     base+3  analytics     base+4  gateway
//   base+5    the gateway's splice listener   base+6  the redirect's return listener (decision 0038)
//   base+1000..1003  the operational listeners (/health, /ready, /metrics) of the gateway, management,
//                    the redirect and analytics (9080-9083 by default)
//   base+1010        Prometheus, with --observability (9090 by default)
// With --scale, the edge (nginx) owns base, base+1 and base+3, and the instances are numbered from
//   base+20 (management), base+30 (gateway), base+40 (redirect), base+50 (analytics), their
//   operational listeners from base+60 (redirect), base+70 (gateway), base+80 (management) and base+90
//   (analytics), with the edge's own health answer on base+10.
const port = {
  ...localServicePorts(basePort),
  gateway: basePort + 4,
  splice: basePort + 5,
  spliceReturn: basePort + 6,
  ops: Number(env.OPS_PORT || basePort + 1002),
  opsOf: (service: ServiceName) =>
    service === "redirect"
      ? port.ops
      : basePort + { gateway: 1000, management: 1001, analytics: 1003 }[service],
  prometheus: basePort + 1010,
  edgeHealth: basePort + 10,
  instance: (service: ServiceName, i: number) =>
    basePort + { management: 20, gateway: 30, redirect: 40, analytics: 50 }[service] + i,
  instanceOps: (service: ServiceName, i: number) =>
    basePort + { redirect: 60, gateway: 70, management: 80, analytics: 90 }[service] + i,
};
// Where Postgres, Redis and the analytics store are, and the public origin: the same settings the admin
// CLI runs with (stack-env.ts), so `./kurz import` writes where this stack reads.
const shared: Record<string, string> = {
  ...localStackEnv(env, basePort),
  // Every internal credential derives from this secret. Unless one is given, each run makes its own,
  // so the public development default is never in use (docs/security.md).
  INTERNAL_TOKEN: env.INTERNAL_TOKEN || randomBytes(32).toString("hex"),
};
// Only the public origin listens where HOST says (loopback unless set); the internal services are
// reachable from this machine only, whatever HOST is.
const INTERNAL_HOST = "127.0.0.1";
const publicPort = Number(new URL(shared.PUBLIC_BASE_URL!).port || 80);

interface Instance {
  /** Console name: the service, with its instance number when scaled. */
  name: string;
  service: ServiceName;
  port: number;
  /** Where /ready answers. */
  readyPort: number;
  /** The operational listener: /health, /ready, /metrics. */
  opsPort: number;
  env: Record<string, string>;
}

function instances(): Instance[] {
  if (!scaled) {
    // Single-machine mode: the redirect service owns the public port, so short links pay no Node hop,
    // and it pipes /api, /docs and /c/ to the gateway on an internal port (docs/decisions/0006).
    return [
      {
        name: "management",
        service: "management",
        port: port.management,
        readyPort: port.management,
        opsPort: port.opsOf("management"),
        env: { HOST: INTERNAL_HOST, OPS_PORT: String(port.opsOf("management")) },
      },
      {
        name: "analytics",
        service: "analytics",
        port: port.analytics,
        readyPort: port.analytics,
        opsPort: port.opsOf("analytics"),
        env: { HOST: INTERNAL_HOST, OPS_PORT: String(port.opsOf("analytics")) },
      },
      {
        name: "gateway",
        service: "gateway",
        port: port.gateway,
        readyPort: port.gateway,
        opsPort: port.opsOf("gateway"),
        env: {
          HOST: INTERNAL_HOST,
          OPS_PORT: String(port.opsOf("gateway")),
          REDIRECT_URL: "",
          TRUST_PROXY: "1",
          // Unless KURZ_SPLICE=0: API connections arrive spliced from the public origin (decision 0038); the
          // redirect trusts no hop, and neither does the splice listener.
          ...(splice
            ? {
                SPLICE_PORT: String(port.splice),
                SPLICE_TRUST_PROXY: "false",
                SPLICE_RETURN_URL: `http://127.0.0.1:${port.spliceReturn}`,
              }
            : {}),
        },
      },
      {
        name: "redirect",
        service: "redirect",
        port: publicPort,
        // The redirect answers readiness on its operational listener only (OPS_PORT).
        readyPort: port.ops,
        opsPort: port.ops,
        env: {
          API_UPSTREAM_URL: `http://127.0.0.1:${port.gateway}`,
          ...(splice
            ? { API_SPLICE_PORT: String(port.splice), SPLICE_RETURN_PORT: String(port.spliceReturn) }
            : {}),
          TRUST_PROXY: "false",
          OPS_PORT: String(port.ops),
        },
      },
    ];
  }
  // Scaled: nginx is the edge, routing as the compose edge does (infra/edge/nginx.conf); every
  // instance is its own supervised process on its own loopback port. Analytics on the embedded store
  // stays one process (chDB opens a data directory from one process only); with CLICKHOUSE_URL it
  // scales like the others.
  const out: Instance[] = [];
  for (const service of SERVICES) {
    const n = scale[service] ?? 1;
    for (let i = 0; i < n; i++) {
      // One management or analytics: on its usual port, without the edge between it and its callers.
      const p =
        n === 1 && (service === "management" || service === "analytics")
          ? port[service]
          : port.instance(service, i);
      const name = n > 1 ? `${service}-${i + 1}` : service;
      const opsPort = port.instanceOps(service, i);
      const base = { name, service, port: p, readyPort: p, opsPort };
      const ops = { OPS_PORT: String(opsPort) };
      if (service === "redirect") {
        out.push({
          ...base,
          readyPort: opsPort,
          env: {
            HOST: INTERNAL_HOST,
            // The edge overwrites X-Forwarded-For with its peer; API paths never reach this instance.
            TRUST_PROXY: "true",
            API_UPSTREAM_URL: "",
            ...ops,
            // Each instance journals and spools in its own directory (the spool is locked by one process).
            SPOOL_DIR: resolve(shared.SPOOL_DIR!, `redirect-${i + 1}`),
          },
        });
      } else if (service === "gateway") {
        out.push({ ...base, env: { HOST: INTERNAL_HOST, REDIRECT_URL: "", TRUST_PROXY: "1", ...ops } });
      } else {
        out.push({ ...base, env: { HOST: INTERNAL_HOST, ...ops } });
      }
    }
  }
  return out;
}

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

/**
 * `detached`: in a process group of its own, out of reach of the terminal's Ctrl-C, which reaches the
 * supervisor and every service at once; stopAll stops it after them instead (Redis, which the services
 * drain into).
 */
function start(
  name: string,
  cmd: string,
  args: string[],
  extraEnv: Record<string, string>,
  color: number,
  opts: { detached?: boolean } = {},
) {
  const supervised = new Supervised({
    name,
    spawn: () => {
      const proc = spawn(cmd, args, {
        cwd: root,
        env: { ...env, ...shared, ...extraEnv },
        stdio: ["ignore", "pipe", "pipe"],
        detached: opts.detached ?? false,
      });
      prefixOutput(name, proc, color);
      // <data>/run/<name>.pid: which process is which instance, for an operator (or a fault test).
      if (proc.pid) writeFileSync(resolve(runDir, `${name}.pid`), `${proc.pid}\n`);
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
  // All at once first: they are stopped one by one, and a Ctrl-C has already reached every one.
  for (const child of children) child.stopRestarting();
  for (const child of [...children].reverse()) await child.stop();
  process.exit(code);
}

async function main(): Promise<void> {
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  // A closed terminal: Redis, in its own process group, gets no hangup of its own.
  process.on("SIGHUP", () => void stopAll(0));
  mkdirSync(runDir, { recursive: true });

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
      // Stopped last, after the services have drained (their buses, the redirect's rate-limit windows):
      // a Redis that took the Ctrl-C too was gone first, and analytics' and management's drains waited
      // out their 10 s on it and exited 1.
      start("redis", "redis-server", redisArgs, {}, 90, { detached: true });
      await waitForRedis();
    }
  }

  // Every service runs from its esbuild bundle (decision 0001), rebuilt on each start so that
  // a source change is live after a restart. Built by a child process: the supervisor then never holds
  // the bundles in memory (measured: 164 MB RSS when it built them itself, see docs/benchmarks/2026-11.md).
  const started = Date.now();
  // KURZ_SKIP_BUILD=1: the bundles are fresh already (a test run builds them once for every stack).
  if (env.KURZ_SKIP_BUILD !== "1")
    await runChild("building the service bundles", ["--import", "tsx", "infra/build/bundle.ts", ...SERVICES]);
  if (env.KURZ_SKIP_BUILD !== "1")
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
  const all = instances();
  for (const s of all) {
    const bounds = memoryBoundsFor(s.service, memory);
    start(
      s.name,
      process.execPath,
      [...nodeFlagsFor(s.service), ...bounds.nodeFlags, bundlePath(s.service)],
      // The operator's own MALLOC_ARENA_MAX wins over the plan's.
      {
        PORT: String(s.port),
        ...bounds.env,
        ...s.env,
        ...(env.MALLOC_ARENA_MAX && { MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX }),
      },
      colors[SERVICES.indexOf(s.service)]!,
    );
  }
  if (scaled) startEdge(all);
  await Promise.all(all.map((s) => waitReady(s.name, `http://127.0.0.1:${s.readyPort}/ready`)));
  if (scaled) await waitReady("edge", `http://127.0.0.1:${port.edgeHealth}/health`);
  const prometheusUrl = observability ? await startPrometheus(all) : null;
  const targets = prometheusUrl ? await targetsPage(prometheusUrl) : null;

  console.log(`
Kurz is up.
  public origin (API + short links)  ${shared.PUBLIC_BASE_URL}${scaled ? `   (nginx in front of ${all.map((s) => s.name).join(", ")})` : ""}
  API                                ${shared.PUBLIC_BASE_URL}/api/v1   docs: ${shared.PUBLIC_BASE_URL}/docs
  data                               ${dataDir}${prometheusUrl ? `\n  Prometheus                         ${prometheusUrl}   targets: ${targets}` : ""}
Create an account and its first API key:
  ./kurz accounts:create --email you@example.com
Press Ctrl-C to stop.`);
}

/**
 * Prometheus beside the stack (--observability), scraping every instance's operational listener with
 * the alert rules of infra/observability; its data under <data>/prometheus. Debian's `prometheus`
 * package provides the binary (infra/local/lib.sh installs it with the test tools); without it the
 * stack runs without, and says so.
 */
async function startPrometheus(all: Instance[]): Promise<string | null> {
  const binary = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].find((p) => existsSync(p));
  if (!binary) {
    console.error(
      "--observability: prometheus is not installed (apt-get install prometheus); running without",
    );
    return null;
  }
  const dir = resolve(dataDir, "prometheus");
  mkdirSync(resolve(dir, "data"), { recursive: true });
  const targets: Record<string, string[]> = {};
  for (const s of all) targets[s.service] = [...(targets[s.service] ?? []), `127.0.0.1:${s.opsPort}`];
  const config = resolve(dir, "prometheus.yml");
  writeFileSync(
    config,
    prometheusConfig({ targets, ruleFiles: [resolve(root, "infra/observability/alerts.yml")] }),
  );
  const address = `127.0.0.1:${port.prometheus}`;
  start(
    "prometheus",
    binary,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${resolve(dir, "data")}`,
      `--web.listen-address=${address}`,
      "--log.level=warn",
    ],
    {},
    94,
  );
  await waitReady("prometheus", `http://${address}/-/ready`);
  return `http://${address}`;
}

/** The targets page: Debian's package serves Prometheus's classic UI only, under /classic. */
async function targetsPage(url: string): Promise<string> {
  const classic = await fetch(`${url}/classic/targets`).then(
    (r) => r.ok,
    () => false,
  );
  return classic ? `${url}/classic/targets` : `${url}/targets`;
}

/** nginx as the edge of a scaled stack, its configuration generated from the compose edge's. */
function startEdge(all: Instance[]): void {
  const prefix = resolve(dataDir, "edge");
  mkdirSync(prefix, { recursive: true });
  // nginx's workers run as an unprivileged user when it is started as root: they must reach the prefix.
  chmodSync(prefix, 0o755);
  const ports = (service: ServiceName) => all.filter((s) => s.service === service).map((s) => s.port);
  const internal = (["management", "analytics"] as const)
    .filter((s) => ports(s).length > 0 && ports(s)[0] !== port[s])
    .map((s) => ({ name: s, port: port[s], instances: ports(s) }));
  const conf = resolve(prefix, "nginx.conf");
  writeFileSync(
    conf,
    localEdgeConfig({
      publicHost: env.HOST || "127.0.0.1",
      publicPort,
      healthPort: port.edgeHealth,
      gateway: ports("gateway"),
      redirect: ports("redirect"),
      internal,
      prefix,
    }),
  );
  start("edge", NGINX, ["-p", prefix, "-c", conf, "-e", "stderr", "-g", "daemon off;"], {}, 37);
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

type ServiceName = (typeof SERVICES)[number];

/** `--scale redirect=2,gateway=2` and `--base-port 18080` (or KURZ_BASE_PORT). */
function parseArgs(args: string[]): {
  scale: Partial<Record<ServiceName, number>>;
  basePort: number;
  observability: boolean;
} {
  const scale: Partial<Record<ServiceName, number>> = {};
  let basePort = localBasePort(env);
  let observability = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const flag = arg.startsWith("--") ? arg.split("=")[0] : arg;
    // --flag value or --flag=value
    const value = () => (arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++i]);
    if (flag === "--scale") {
      const spec = value();
      for (const part of (spec ?? "").split(",").filter(Boolean)) {
        const [name, count] = part.split("=");
        const n = Number(count);
        if (!SERVICES.includes(name as ServiceName) || !Number.isInteger(n) || n < 1 || n > 9) {
          usage(`--scale: "${part}" is not service=count (services: ${SERVICES.join(", ")}; count 1-9)`);
        }
        scale[name as ServiceName] = n;
      }
    } else if (flag === "--base-port") {
      basePort = Number(value());
    } else if (arg === "--observability") {
      observability = true;
    } else {
      usage(`unknown argument "${arg}"`);
    }
  }
  if (!Number.isInteger(basePort) || basePort < 1024 || basePort > 65_535 - 1100) {
    usage("--base-port: a port from 1024 to 64435 (the stack uses ports up to base+1010)");
  }
  if ((scale.analytics ?? 1) > 1 && !env.CLICKHOUSE_URL) {
    usage(
      "--scale analytics=N needs CLICKHOUSE_URL: the embedded store opens its data directory from one process only",
    );
  }
  return { scale, basePort, observability };
}

function usage(problem: string): never {
  console.error(`kurz up: ${problem}
usage: ./kurz up [--scale service=N,...] [--base-port PORT] [--observability]
  --scale redirect=3,gateway=2,management=2   several instances of a service behind nginx (the edge)
  --base-port 18080                           the public origin's port; the others follow from it
  --observability                             Prometheus beside the stack (base+1010, 9090 by default)`);
  process.exit(2);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  void stopAll(1);
});
