// `./kurz bench redirect`: redirect throughput against the Node ceiling, in one run.
//   (a) a bare node:http server answering 302 with no lookup,
//   (b) the redirect service (LRU → Redis, click publishing to the Redis Streams bus on),
//   (b) is configured as `./kurz up` runs it: it owns the public origin (API_UPSTREAM_URL set, decision 0006),
//   so (b) is also the figure "through the public origin" for short links.
//   (c) for comparison, the layout before decision 0006: the gateway in front, forwarding to redirect.
// Servers are pinned to core 0 with taskset; wrk and a Redis server of the benchmark's own are pinned
// to core 1, so the server core is the server's alone, as it would be with Redis on another host.
// 100k links are seeded into that Redis and every request asks for a random one. (a) and (b) are
// measured in turns, so a slow spell of a shared host weighs on both; the ratio is the median of the
// pairs. The redirect runs from its bundle, as `./kurz up` runs it (decision 0008).
// Options: --duration <s> (default 10), --runs <n> (default 3), --connections <n> (default 64).
// Run under `flock /tmp/bench.lock` on a shared machine.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BUNDLE_NODE_FLAGS, bundle } from "../build/bundle.ts";

export const description =
  "redirect service vs a bare node:http 302 (the Node ceiling), and through the public origin";

const root = resolve(import.meta.dirname, "../..");
const LINKS = 100_000;

interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non3xx: number;
}

const freePort = () =>
  new Promise<number>((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => res(port));
    });
  });

async function waitHttp(url: string, timeoutMs = 60_000): Promise<void> {
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

function pinned(args: string[], env: Record<string, string>, core = 0): ChildProcess {
  const child = spawn("taskset", ["-c", String(core), ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => process.stderr.write(d));
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(20_000).then(() => child.kill("SIGKILL"))]);
}

const ms = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

function wrk(url: string, script: string, seconds: number, connections: number): WrkResult {
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

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
  redisCli(port, ["--pipe"], parts.join(""));
}

const BARE_SERVER = `require("node:http").createServer((req, res) => {
  res.writeHead(302, { location: "https://example.com/landing/1?utm_source=bench", "cache-control": "private, max-age=0", "content-length": 0 });
  res.end();
}).listen(Number(process.env.PORT), "127.0.0.1");`;

export async function run(args: string[]): Promise<string> {
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? dflt : Number(args[i + 1]);
  };
  const seconds = opt("duration", 10);
  const runs = opt("runs", 3);
  const connections = opt("connections", 64);
  const prefix = `bench-redirect-${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "kurz-bench-"));
  const script = join(dir, "random-codes.lua");
  writeFileSync(
    script,
    `math.randomseed(${Date.now() % 100000})\nrequest = function() return wrk.format("GET", "/bn" .. math.random(0, ${LINKS - 1})) end\n`,
  );
  const redirectBundle = await bundle("redirect");

  const children: ChildProcess[] = [];
  const results: Record<string, WrkResult[]> = { a: [], b: [], c: [] };
  const warm = (url: string) => wrk(url, script, 10, connections); // JIT, every code cached, connections open

  let rss = { rss: 0, peak: 0 };
  let pipeline = "";
  let memory = "";
  try {
    const redisPort = await freePort();
    children.push(
      pinned(
        [
          "redis-server",
          "--port",
          String(redisPort),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
        ],
        {},
        1,
      ),
    );
    for (let i = 0; i < 50 && spawnSync("redis-cli", ["-p", String(redisPort), "ping"]).status !== 0; i++)
      await sleep(100);
    seed(redisPort, prefix);
    const redisUrl = `redis://127.0.0.1:${redisPort}`;

    const [barePort, rPort, gPort, opsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    // (a) the Node ceiling
    const bare = pinned([process.execPath, "-e", BARE_SERVER], { PORT: String(barePort) });
    children.push(bare);
    // (b) the redirect service as the public origin, as `./kurz up` runs it
    const env = {
      LOG_LEVEL: "warn",
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: `${prefix}:`,
      BUS: "redis",
      BUS_PREFIX: prefix,
      SPOOL_DIR: join(dir, "spool"),
      PUBLIC_BASE_URL: `http://127.0.0.1:${gPort}`,
      REDIRECT_URL: `http://127.0.0.1:${rPort}`,
      // Nothing may reach management in this benchmark: every code is seeded.
      MANAGEMENT_URL: "http://127.0.0.1:9",
      TRUST_PROXY: "1",
    };
    const redirect = pinned([process.execPath, ...BUNDLE_NODE_FLAGS, redirectBundle], {
      ...env,
      PORT: String(rPort),
      // /health and /metrics are answered on the operational listener only.
      OPS_PORT: String(opsPort),
      API_UPSTREAM_URL: `http://127.0.0.1:${gPort}`,
    });
    children.push(redirect);
    const a = `http://127.0.0.1:${barePort}`;
    const b = `http://127.0.0.1:${rPort}`;
    await waitHttp(`${a}/`);
    const ops = `http://127.0.0.1:${opsPort}`;
    await waitHttp(`${ops}/health`);
    warm(a);
    warm(b);
    for (let i = 0; i < runs; i++) {
      results.a!.push(wrk(a, script, seconds, connections));
      results.b!.push(wrk(b, script, seconds, connections));
    }
    await stop(bare);
    rss = rssMb(redirect.pid!);
    const m = await (await fetch(`${ops}/metrics`)).text();
    const metric = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(m)?.[1] ?? Number.NaN);
    pipeline = m
      .split("\n")
      .filter((l) => /^clicks_\w+ \d+$/.test(l))
      .join(", ");
    const mb = (name: string) => (metric(name) / 1048576).toFixed(0);
    memory = `heap used ${mb("nodejs_heap_size_used_bytes")} MB of ${mb("nodejs_heap_size_total_bytes")} MB, external ${mb("nodejs_external_memory_bytes")} MB`;

    // (c) for comparison, the layout before decision 0006: the gateway in front
    const gateway = pinned([process.execPath, "--import", "tsx", "services/gateway/src/main.ts"], {
      ...env,
      PORT: String(gPort),
    });
    children.push(gateway);
    await waitHttp(`http://127.0.0.1:${gPort}/health`);
    wrk(`http://127.0.0.1:${gPort}`, script, 3, connections);
    results.c!.push(wrk(`http://127.0.0.1:${gPort}`, script, seconds, connections));
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }

  const row = (label: string, key: string) => {
    const r = results[key]!;
    const sum = (f: (w: WrkResult) => number) => r.reduce((acc, w) => acc + f(w), 0);
    return `| ${label} | ${Math.round(median(r.map((w) => w.rps))).toLocaleString("en")} | ${median(r.map((w) => w.p50)).toFixed(2)} ms | ${median(r.map((w) => w.p99)).toFixed(2)} ms | ${sum((w) => w.errors)} / ${sum((w) => w.non3xx)} |`;
  };
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  const pairs = results.b!.map((w, i) => w.rps / results.a![i]!.rps);
  const worstP99 = Math.max(...results.b!.map((w) => w.p99));
  return [
    `## redirect`,
    "",
    `\`./kurz bench redirect --duration ${seconds} --runs ${runs} --connections ${connections}\` (${new Date().toISOString().slice(0, 10)}).`,
    `Servers pinned to core 0 (\`taskset -c 0\`); \`wrk -t1 -c${connections} -d${seconds}s\` and the benchmark's own Redis`,
    `(cache and Redis Streams bus) pinned to core 1; loopback. ${LINKS.toLocaleString("en")} links seeded, a random code per`,
    `request. After a 10 s warm-up of each, (a) and (b) were measured in ${runs} alternating pairs; medians below.`,
    "",
    "| server | req/s | p50 | p99 | socket errors / non-3xx |",
    "|---|---|---|---|---|",
    row("(a) bare `node:http` 302, no lookup", "a"),
    row("(b) redirect service (bundle) as the public origin, click publishing on", "b"),
    row("(c) for comparison: gateway in front of redirect (layout before decision 0006), one run", "c"),
    "",
    `Ratio (b)/(a), median of the pairs: **${pct(median(pairs))}** (pairs: ${pairs.map(pct).join(", ")}; target ≥ 60%).`,
    `p99 of (b): median ${median(results.b!.map((w) => w.p99)).toFixed(2)} ms, worst run ${worstP99.toFixed(2)} ms (target < 10 ms).`,
    `Redirect RSS after the runs: ${rss.rss.toFixed(0)} MB (peak ${rss.peak.toFixed(0)} MB; target < 200 MB); ${memory}.`,
    `Click pipeline after (b): ${pipeline}.`,
    `The old gateway-first layout (c)/(a): ${pct(median(results.c!.map((w) => w.rps)) / median(results.a!.map((w) => w.rps)))}.`,
    "",
  ].join("\n");
}
