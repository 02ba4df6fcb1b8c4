// The stack as `./kurz up` starts it, for the benchmarks that measure the whole of it (footprint,
// stack): infra/local/up.ts as a child in a process group of its own, on ports, a Redis and a data
// directory of its own, the services from their bundles; and the few things such a benchmark does to
// it through its public doors (an account from the admin CLI, links through a CSV import).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { getFreePort, getFreePortBase } from "@kurz/testing";
import { cliNodeArgs, ensureBundles } from "@kurz/testing/bundles";

const root = resolve(import.meta.dirname, "../..");
const exec = promisify(execFile);
export const SERVICES = ["management", "analytics", "gateway", "redirect"] as const;

export interface Stack {
  origin: string;
  /** The redirect's operational listener (/metrics), base+1002 as `./kurz up` puts it. */
  redirectOps: string;
  /** Analytics' operational listener (/metrics), base+1003. */
  analyticsOps: string;
  dataDir: string;
  up: ChildProcess;
  output: () => string;
  /** The supervisor's and each service's pid (0 while a service has none). */
  pids: () => Record<string, number>;
  redisPid: () => number[];
  stop(): Promise<void>;
}

export interface UpOptions {
  /** Names the data directory (kurz-bench-<name>-…). */
  name: string;
  /** Environment of the whole stack on top of the caller's, given the data directory; NODE_OPTIONS is appended to. */
  env?: (dataDir: string) => Record<string, string>;
  /** CPUs the stack may run on (taskset -c), so that the load's client can have others to itself. */
  cpus?: string;
  /** Runs the supervisor's command line through this (a memory cgroup's `wrap`, _cgroup.ts), which must exec it. */
  wrap?: (argv: string[]) => [string, string[]];
}

/** infra/local/up.ts in a process group of its own, as `./kurz up` runs it, until "Kurz is up.". */
export async function startUp(
  databaseUrl: string,
  prod: Record<string, string>,
  options: UpOptions,
): Promise<Stack> {
  const [base, redisPort] = await Promise.all([
    getFreePortBase([0, 1, 3, 4, 5, 6, 1002]),
    getFreePort(),
    ensureBundles(),
    // The supervisor's own bundle, as `./kurz up` builds it before it runs it.
    exec(process.execPath, ["--import", "tsx", "infra/local/up-bundle.ts"], { cwd: root }),
  ]);
  const dataDir = mkdtempSync(join(tmpdir(), `kurz-bench-${options.name}-`));
  const extra = options.env?.(dataDir) ?? {};
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...prod,
    ...extra,
    DATABASE_URL: databaseUrl,
    KURZ_DATA_DIR: dataDir,
    KURZ_REDIS_PORT: String(redisPort),
    // ensureBundles built them; `./kurz up` builds them in a child process that exits before the services start.
    KURZ_SKIP_BUILD: "1",
    NODE_OPTIONS: [process.env.NODE_OPTIONS, extra.NODE_OPTIONS].filter(Boolean).join(" "),
    // The API and analytics clients are one key asking many times a second.
    RATE_LIMIT_PER_MINUTE: "10000000",
    RATE_LIMIT_PER_HOUR: "100000000",
  };
  delete env.REDIS_URL;
  delete env.SPOOL_DIR; // the stack's own, under its data directory, as `./kurz up` has it
  const upArgv = [process.execPath, "infra/local/dist/up.mjs", "--base-port", String(base)];
  const pinned = options.cpus ? ["taskset", "-c", options.cpus, ...upArgv] : upArgv;
  // Each wrapper execs the next, so the spawned pid is the supervisor's.
  const [command, args] = options.wrap ? options.wrap(pinned) : [pinned[0]!, pinned.slice(1)];
  const up = spawn(command, args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  for (const stream of [up.stdout, up.stderr]) stream?.on("data", (d: Buffer) => (output += d.toString()));
  const runPid = (name: string) => {
    try {
      return Number(readFileSync(resolve(dataDir, "run", `${name}.pid`), "utf8"));
    } catch {
      return 0;
    }
  };
  const stack: Stack = {
    origin: `http://127.0.0.1:${base}`,
    redirectOps: `http://127.0.0.1:${base + 1002}`,
    analyticsOps: `http://127.0.0.1:${base + 1003}`,
    dataDir,
    up,
    output: () => output,
    pids: () => ({ supervisor: up.pid!, ...Object.fromEntries(SERVICES.map((n) => [n, runPid(n)])) }),
    redisPid: () => [runPid("redis")].filter((p) => p > 0),
    async stop() {
      if (up.exitCode === null) {
        const exited = new Promise((r) => up.once("exit", r));
        process.kill(-up.pid!, "SIGINT");
        await Promise.race([exited, sleep(60_000)]);
        if (up.exitCode === null) process.kill(-up.pid!, "SIGKILL");
      }
      for (const pid of stack.redisPid()) if (isAlive(pid)) process.kill(pid, "SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 180_000;
  while (!output.includes("Kurz is up.")) {
    if (up.exitCode !== null || Date.now() > deadline) {
      await stack.stop();
      throw new Error(`./kurz up did not come up:\n${output}`);
    }
    await sleep(200);
  }
  return stack;
}

export const isAlive = (pid: number | undefined) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** An account with an API key, through the admin CLI as an operator makes one (its limits from the env). */
export async function createAccount(
  databaseUrl: string,
  name: string,
): Promise<{ account_id: string; api_key: string }> {
  const { stdout } = await exec(
    process.execPath,
    cliNodeArgs([
      "accounts:create",
      "--email",
      `${name}-${Date.now()}@example.com`,
      "--link-limit",
      "1000000",
    ]),
    {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        RATE_LIMIT_PER_MINUTE: "10000000",
        RATE_LIMIT_PER_HOUR: "100000000",
      },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

export type Auth = Record<string, string>;

/** Imports a CSV through the API and waits for its job; the job's counts. */
export async function importCsv(stack: Stack, auth: Auth, csv: string): Promise<Record<string, number>> {
  const posted = await fetch(`${stack.origin}/api/v1/imports`, {
    method: "POST",
    headers: { ...auth, "content-type": "text/csv" },
    body: csv,
  });
  if (posted.status !== 202) throw new Error(`import answered ${posted.status}: ${await posted.text()}`);
  const id = ((await posted.json()) as { data: { id: string } }).data.id;
  for (const deadline = Date.now() + 600_000; Date.now() < deadline; ) {
    const res = await fetch(`${stack.origin}/api/v1/imports/${id}`, { headers: auth });
    const body = await res.text();
    if (res.status !== 200)
      throw new Error(`the import's status answered ${res.status}: ${body.slice(0, 200)}`);
    const job = (JSON.parse(body) as { data: { status: string; counts: Record<string, number> } }).data;
    if (job.status === "completed") return job.counts;
    if (job.status === "failed") throw new Error(`import failed: ${JSON.stringify(job)}`);
    await sleep(250);
  }
  throw new Error("import did not finish in 10 minutes");
}

export const BROWSER =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

/** wrk's summary: requests, rate, socket errors, answers other than 2xx/3xx, and (with --latency) percentiles in ms. */
export function parseWrk(out: string) {
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: (.*)/.exec(out)?.[1] ?? "none";
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const ms = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)$`, "m").exec(out);
    if (!m) return undefined;
    return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
  };
  return { requests, rps, errors, bad, p50: ms("50"), p99: ms("99") };
}
