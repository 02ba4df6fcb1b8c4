// `./kurz bench redirect`: redirect throughput against the Node ceiling, in one run.
//   (a) a bare node:http server answering 302 with no lookup,
//   (b) the redirect service (LRU → Redis, click publishing to the Redis Streams bus on),
//   (b) is configured as `./kurz up` runs it: it owns the public origin (API_UPSTREAM_URL set, decision 0006),
//   so (b) is also the figure "through the public origin" for short links.
//   (c) for comparison, the layout before decision 0006: the gateway in front, forwarding to redirect.
// Servers are pinned to core 0 with taskset, wrk to core 1; 100k links are seeded into Redis and
// every request asks for a random one. Options: --duration <s> (default 10), --runs <n> (default 3),
// --connections <n> (default 64). Run under `flock /tmp/bench.lock` on a shared machine.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export const description =
  "redirect service vs a bare node:http 302 (the Node ceiling), and through the public origin";

const root = resolve(import.meta.dirname, "../..");
const LINKS = 100_000;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

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

function pinned(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn("taskset", ["-c", "0", ...args], {
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

function redisCli(args: string[], input?: string): string {
  const u = new URL(REDIS_URL);
  return execFileSync("redis-cli", ["-h", u.hostname, "-p", u.port || "6379", ...args], {
    input,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
}

function seed(prefix: string): void {
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
    parts.push(`*3\r\n${bulk("SET")}${bulk(`${prefix}:link:b${i}`)}${bulk(record)}`);
  }
  redisCli(["--pipe"], parts.join(""));
}

function cleanup(prefix: string): void {
  const keys = redisCli(["--scan", "--pattern", `${prefix}*`])
    .split("\n")
    .filter(Boolean);
  for (let i = 0; i < keys.length; i += 1000) redisCli(["unlink", ...keys.slice(i, i + 1000)]);
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
    `math.randomseed(${Date.now() % 100000})\nrequest = function() return wrk.format("GET", "/b" .. math.random(0, ${LINKS - 1})) end\n`,
  );
  seed(prefix);

  const children: ChildProcess[] = [];
  const results: Record<
    string,
    { rps: number[]; p50: number[]; p99: number[]; errors: number; non3xx: number }
  > = {};
  const measure = async (name: string, url: string) => {
    wrk(url, script, 3, connections); // warm-up: JIT, LRU filled, connections established
    const r = { rps: [] as number[], p50: [] as number[], p99: [] as number[], errors: 0, non3xx: 0 };
    for (let i = 0; i < runs; i++) {
      const w = wrk(url, script, seconds, connections);
      r.rps.push(w.rps);
      r.p50.push(w.p50);
      r.p99.push(w.p99);
      r.errors += w.errors;
      r.non3xx += w.non3xx;
    }
    results[name] = r;
  };

  let rss = { rss: 0, peak: 0 };
  let clickMetrics = "";
  try {
    // (a) the Node ceiling
    const barePort = await freePort();
    const bare = pinned([process.execPath, "-e", BARE_SERVER], { PORT: String(barePort) });
    children.push(bare);
    await waitHttp(`http://127.0.0.1:${barePort}/`);
    await measure("a", `http://127.0.0.1:${barePort}`);
    await stop(bare);

    // (b) the redirect service as the public origin; (c) the gateway in front of it (the old layout)
    const [rPort, gPort] = [await freePort(), await freePort()];
    const env = {
      LOG_LEVEL: "warn",
      REDIS_URL,
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
    const redirect = pinned([process.execPath, "--import", "tsx", "services/redirect/src/main.ts"], {
      ...env,
      PORT: String(rPort),
      API_UPSTREAM_URL: `http://127.0.0.1:${gPort}`,
    });
    children.push(redirect);
    await waitHttp(`http://127.0.0.1:${rPort}/health`);
    await measure("b", `http://127.0.0.1:${rPort}`);
    rss = rssMb(redirect.pid!);
    const m = await (await fetch(`http://127.0.0.1:${rPort}/metrics`)).text();
    clickMetrics = m
      .split("\n")
      .filter((l) => /^clicks_\w+ \d+$/.test(l))
      .join(", ");

    const gateway = pinned([process.execPath, "--import", "tsx", "services/gateway/src/main.ts"], {
      ...env,
      PORT: String(gPort),
    });
    children.push(gateway);
    await waitHttp(`http://127.0.0.1:${gPort}/health`);
    await measure("c", `http://127.0.0.1:${gPort}`);
  } finally {
    for (const c of children.reverse()) await stop(c);
    cleanup(prefix);
    rmSync(dir, { recursive: true, force: true });
  }

  const row = (label: string, key: string) => {
    const r = results[key]!;
    return `| ${label} | ${Math.round(median(r.rps)).toLocaleString("en")} | ${median(r.p50).toFixed(2)} ms | ${median(r.p99).toFixed(2)} ms | ${r.errors} / ${r.non3xx} |`;
  };
  const ratio = (k: string) => ((median(results[k]!.rps) / median(results.a!.rps)) * 100).toFixed(0);
  return [
    `## redirect`,
    "",
    `\`./kurz bench redirect --duration ${seconds} --runs ${runs} --connections ${connections}\` (${new Date().toISOString().slice(0, 10)}).`,
    `Server pinned to core 0 (\`taskset -c 0\`), \`wrk -t1 -c${connections} -d${seconds}s\` on core 1, loopback;`,
    `${LINKS.toLocaleString("en")} links seeded in Redis, a random code per request; medians of ${runs} runs after a 3 s warm-up.`,
    "Redis (cache and Redis Streams bus) is the shared local server, not pinned.",
    "",
    "| server | req/s | p50 | p99 | socket errors / non-3xx |",
    "|---|---|---|---|---|",
    row("(a) bare `node:http` 302, no lookup", "a"),
    row("(b) redirect service as the public origin, click publishing on", "b"),
    row("(c) for comparison: gateway in front of redirect (layout before decision 0006)", "c"),
    "",
    `Ratio (b)/(a): **${ratio("b")}%** (target ≥ 60%). The old gateway-first layout (c)/(a): ${ratio("c")}%.`,
    `Redirect RSS after the runs: ${rss.rss.toFixed(0)} MB (peak ${rss.peak.toFixed(0)} MB; target < 200 MB).`,
    `Click pipeline after (b): ${clickMetrics}.`,
    "",
  ].join("\n");
}
