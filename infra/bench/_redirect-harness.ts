// The redirect benchmark's harness, shared by `./kurz bench redirect` (redirect.ts) and the A/B of
// bundles (_redirect-ab.ts): servers pinned to core 0, wrk and the benchmark's own Redis to core 1,
// 100k links seeded into that Redis, a bare node:http 302 as the Node ceiling.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { nodeFlagsFor } from "../build/bundle.ts";

export const root = resolve(import.meta.dirname, "../..");
export const LINKS = 100_000;
/**
 * Smart links seeded beside the plain ones (codes `bs<i>`): five rules that the benchmark's requests
 * never match (device, OS, country, language, query), so every request evaluates all five and gets
 * the default, with the visit's query forwarded. The worst case of a link with rules.
 */
export const SMART_LINKS = 1_000;
export const SMART_RECORD_S = {
  r: [
    { u: "https://example.com/tablet", d: ["tablet"] },
    { u: "https://example.com/chromeos", o: ["chromeos"] },
    { u: "https://example.jp/", c: ["JP", "KR"] },
    { u: "https://example.jp/ja", l: ["ja"] },
    { u: "https://example.com/twitter", q: [["ref", "tw"]] },
  ],
  f: 1,
};
/** What the smart links' requests carry: a browser's agent and languages, a query, a client address. */
export const SMART_REQUEST_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";
export const SMART_REQUEST_LANGUAGE = "en-US,en;q=0.9,de;q=0.8";

export interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non3xx: number;
}

export const freePort = () =>
  new Promise<number>((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => res(port));
    });
  });

export async function waitHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(1000) });
      await r.body?.cancel();
      if (r.status < 500) return;
    } catch {}
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** `stdout`: a file descriptor to keep the child's output (the A/B's tracing flags), else dropped. */
export function pinned(
  args: string[],
  env: Record<string, string>,
  core = 0,
  stdout: "ignore" | number = "ignore",
): ChildProcess {
  const child = spawn("taskset", ["-c", String(core), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", stdout, "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(d));
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(20_000).then(() => child.kill("SIGKILL"))]);
}

const ms = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

export function wrk(url: string, script: string, seconds: number, connections: number): WrkResult {
  const out = execFileSync(
    "taskset",
    ["-c", "1", "wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, url],
    { encoding: "utf8", timeout: (seconds + 30) * 1000 },
  );
  const num = (re: RegExp) => {
    const m = re.exec(out);
    return m ? m : null;
  };
  const p50 = num(/50%\s+([\d.]+)(us|ms|s)/);
  const p99 = num(/99%\s+([\d.]+)(us|ms|s)/);
  const errs = num(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  return {
    rps: Number(num(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
    p50: p50 ? ms(p50[1]!, p50[2]!) : Number.NaN,
    p99: p99 ? ms(p99[1]!, p99[2]!) : Number.NaN,
    errors: errs ? errs.slice(1).reduce((s, v) => s + Number(v), 0) : 0,
    non3xx: Number(num(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
  };
}

export const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
};

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function redisCli(port: number, args: string[], input?: string): string {
  return execFileSync("redis-cli", ["-p", String(port), ...args], {
    input,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
}

function seed(port: number, prefix: string): void {
  // RESP for SET commands, piped in bulk (redis-cli --pipe).
  const parts: string[] = [];
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  for (let i = 0; i < LINKS; i++) {
    const record = JSON.stringify({
      id: `0190a1b2-0000-7000-8000-${String(i).padStart(12, "0")}`,
      account_id: "0190a1b2-0000-7000-8000-0000000000aa",
      url: `https://example.com/landing/${i}?utm_source=bench`,
      active: true,
      expires_at: null,
      password_hash: null,
    });
    parts.push(`*3\r\n${bulk("SET")}${bulk(`${prefix}:link:bn${i}`)}${bulk(record)}`);
  }
  for (let i = 0; i < SMART_LINKS; i++) {
    const record = JSON.stringify({
      id: `0190a1b2-0000-7000-8001-${String(i).padStart(12, "0")}`,
      account_id: "0190a1b2-0000-7000-8000-0000000000aa",
      url: `https://example.com/landing/${i}`,
      active: true,
      expires_at: null,
      password_hash: null,
      s: SMART_RECORD_S,
    });
    parts.push(`*3\r\n${bulk("SET")}${bulk(`${prefix}:link:bs${i}`)}${bulk(record)}`);
  }
  redisCli(port, ["--pipe"], parts.join(""));
}

export const BARE_SERVER = `require("node:http").createServer((req, res) => {
  res.writeHead(302, { location: "https://example.com/landing/1?utm_source=bench", "cache-control": "private, max-age=0", "content-length": 0 });
  res.end();
}).listen(Number(process.env.PORT), "127.0.0.1");`;

/** The benchmark's own Redis on core 1 (nothing kept on disk), seeded with the links; added to `children`. */
export async function seededRedis(children: ChildProcess[], prefix: string): Promise<number> {
  const port = await freePort();
  children.push(
    pinned(
      ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      {},
      1,
    ),
  );
  for (let i = 0; i < 50 && spawnSync("redis-cli", ["-p", String(port), "ping"]).status !== 0; i++)
    await sleep(100);
  seed(port, prefix);
  return port;
}

export interface Bench {
  /** The Redis key and bus prefix the links are seeded under. */
  prefix: string;
  redisPort: number;
  /** The wrk script: every request asks for a random seeded code. */
  script: string;
  /**
   * The smart links' wrk script: a random smart code with `?utm_source=x`, a browser's User-Agent and
   * Accept-Language, and a random public client address in X-Forwarded-For (one trusted proxy).
   */
  smartScript: string;
  /** Plain links asked for with the smart links' requests (their headers and query). */
  plainBrowserScript: string;
  /** The bare server's address, answering. */
  bare: string;
  bareChild: ChildProcess;
}

/**
 * What every run stands on: the seeded Redis and the bare server (a), both added to `children`, and the
 * wrk script, written into `dir`.
 */
export async function startBench(children: ChildProcess[], dir: string): Promise<Bench> {
  const prefix = `bench-redirect-${randomBytes(4).toString("hex")}`;
  const script = join(dir, "random-codes.lua");
  writeFileSync(
    script,
    `math.randomseed(${Date.now() % 100000})\nrequest = function() return wrk.format("GET", "/bn" .. math.random(0, ${LINKS - 1})) end\n`,
  );
  // Addresses drawn once, so that wrk's core spends its time on requests, not on building them.
  const browserRequests = (code: string, count: number) =>
    [
      `math.randomseed(${(Date.now() + 1) % 100000})`,
      "local addresses = {}",
      'for i = 1, 4096 do addresses[i] = math.random(1, 223) .. "." .. math.random(0, 255) .. "." .. math.random(0, 255) .. "." .. math.random(1, 254) end',
      `local headers = { ["User-Agent"] = "${SMART_REQUEST_UA}", ["Accept-Language"] = "${SMART_REQUEST_LANGUAGE}" }`,
      "request = function()",
      '  headers["X-Forwarded-For"] = addresses[math.random(1, 4096)]',
      `  return wrk.format("GET", "/${code}" .. math.random(0, ${count - 1}) .. "?utm_source=x", headers)`,
      "end",
      "",
    ].join("\n");
  const smartScript = join(dir, "smart-codes.lua");
  writeFileSync(smartScript, browserRequests("bs", SMART_LINKS));
  const plainBrowserScript = join(dir, "plain-codes-browser.lua");
  writeFileSync(plainBrowserScript, browserRequests("bn", LINKS));
  const redisPort = await seededRedis(children, prefix);
  const barePort = await freePort();
  const bareChild = pinned([process.execPath, "-e", BARE_SERVER], { PORT: String(barePort) });
  children.push(bareChild);
  const bare = `http://127.0.0.1:${barePort}`;
  await waitHttp(`${bare}/`);
  return { prefix, redisPort, script, smartScript, plainBrowserScript, bare, bareChild };
}

export interface BenchRedirect {
  url: string;
  /** The operational listener: /health, /metrics. */
  ops: string;
  child: ChildProcess;
  /** Where its public origin forwards the API: a gateway started there sees the same settings (`env`). */
  gatewayPort: number;
  /** The settings it shares with a gateway beside it (not its own ports). */
  env: Record<string, string>;
}

/**
 * A redirect bundle on core 0, started with the redirect's flags (nodeFlagsFor) and `nodeFlags`, as
 * `./kurz up` runs it: the public origin (API_UPSTREAM_URL set, decision 0038), the links from the
 * benchmark's Redis, its clicks to that Redis's bus under `busPrefix`. Added to `children`; resolves
 * once it is healthy.
 */
export async function startRedirect(
  children: ChildProcess[],
  bench: Bench,
  o: {
    bundle: string;
    busPrefix: string;
    spoolDir: string;
    nodeFlags?: string[];
    /** Added to its own settings. */
    env?: Record<string, string>;
    stdout?: "ignore" | number;
  },
): Promise<BenchRedirect> {
  const [port, opsPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const env = {
    LOG_LEVEL: "warn",
    REDIS_URL: `redis://127.0.0.1:${bench.redisPort}`,
    REDIS_KEY_PREFIX: `${bench.prefix}:`,
    BUS: "redis",
    BUS_PREFIX: o.busPrefix,
    SPOOL_DIR: o.spoolDir,
    PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
    REDIRECT_URL: `http://127.0.0.1:${port}`,
    // Nothing may reach management in this benchmark: every code is seeded.
    MANAGEMENT_URL: "http://127.0.0.1:9",
    TRUST_PROXY: "1",
  };
  const child = pinned(
    [process.execPath, ...nodeFlagsFor("redirect"), ...(o.nodeFlags ?? []), o.bundle],
    {
      ...env,
      PORT: String(port),
      // Room for the plain links and the smart ones together (the default holds the plain ones).
      CACHE_MAX_ENTRIES: String(LINKS + SMART_LINKS),
      // /health and /metrics are answered on the operational listener only.
      OPS_PORT: String(opsPort),
      API_UPSTREAM_URL: `http://127.0.0.1:${gatewayPort}`,
      ...o.env,
    },
    0,
    o.stdout,
  );
  children.push(child);
  const ops = `http://127.0.0.1:${opsPort}`;
  await waitHttp(`${ops}/health`);
  return { url: `http://127.0.0.1:${port}`, ops, child, gatewayPort, env };
}
