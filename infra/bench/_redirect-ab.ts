// A/B of redirect bundles under `./kurz bench redirect`'s harness, in one run: the same Redis (seeded
// with the same 100k links), the same bare server (a), the same wrk script, the servers pinned to core 0
// and wrk and Redis to core 1, every bundle started with BUNDLE_NODE_FLAGS and the bench's environment.
// Each round measures (a) and then every bundle, in an order that alternates between rounds, so a slow
// spell of the shared host weighs on all of them. Not a benchmark of record (that is `./kurz bench
// redirect`); it answers "which of these bundles is faster" with less noise than separate runs.
//   node --import tsx infra/bench/_redirect-ab.ts [--duration 10] [--rounds 3] [--profile <dir>] \
//     name=/path/to/main.mjs name2=/path/to/other.mjs
// --profile runs every bundle with --cpu-prof into <dir> (a profile per bundle, written at exit).
// Run under `flock /tmp/bench.lock`.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BUNDLE_NODE_FLAGS } from "../build/bundle.ts";

const root = resolve(import.meta.dirname, "../..");
const LINKS = 100_000;

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

async function waitHttp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(1000) });
      await r.body?.cancel();
      if (r.status < 500) return;
    } catch {}
    await sleep(200);
  }
  throw new Error(`${url} did not answer`);
}

function pinned(
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

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(20_000).then(() => child.kill("SIGKILL"))]);
}

const ms = (v: string, unit: string) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

function wrk(url: string, script: string, seconds: number) {
  const out = execFileSync(
    "taskset",
    ["-c", "1", "wrk", "-t1", "-c64", `-d${seconds}s`, "--latency", "-s", script, url],
    { encoding: "utf8", timeout: (seconds + 30) * 1000 },
  );
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p99: p99 ? ms(p99[1]!, p99[2]!) : Number.NaN,
    non3xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
  };
}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return `${(kb("VmRSS") / 1024).toFixed(0)}/${(kb("VmHWM") / 1024).toFixed(0)} MB`;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(`--${name}`);
    if (i === -1) return undefined;
    const v = args[i + 1]!;
    args.splice(i, 2);
    return v;
  };
  const seconds = Number(opt("duration") ?? 10);
  const rounds = Number(opt("rounds") ?? 3);
  const profileDir = opt("profile");
  const bundles = args.map((a) => {
    const [name, path] = a.split("=") as [string, string];
    return { name, path };
  });
  const prefix = `bench-redirect-${randomBytes(4).toString("hex")}`;
  const dir = mkdtempSync(join(tmpdir(), "kurz-ab-"));
  const script = join(dir, "random-codes.lua");
  writeFileSync(
    script,
    `math.randomseed(${Date.now() % 100000})\nrequest = function() return wrk.format("GET", "/bn" .. math.random(0, ${LINKS - 1})) end\n`,
  );
  const children: ChildProcess[] = [];
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
    execFileSync("redis-cli", ["-p", String(redisPort), "--pipe"], {
      input: parts.join(""),
      maxBuffer: 256 * 1024 * 1024,
    });
    const barePort = await freePort();
    const bare = pinned(
      [
        process.execPath,
        "-e",
        `require("node:http").createServer((req, res) => { res.writeHead(302, { location: "https://example.com/landing/1?utm_source=bench", "cache-control": "private, max-age=0", "content-length": 0 }); res.end(); }).listen(Number(process.env.PORT), "127.0.0.1");`,
      ],
      { PORT: String(barePort) },
    );
    children.push(bare);
    const a = `http://127.0.0.1:${barePort}`;
    await waitHttp(`${a}/`);
    wrk(a, script, 10);
    const servers: { name: string; url: string; child: ChildProcess }[] = [];
    for (const [i, b] of bundles.entries()) {
      const [rPort, gPort, opsPort] = [await freePort(), await freePort(), await freePort()];
      const flags = profileDir
        ? ["--cpu-prof", "--cpu-prof-dir", profileDir, "--cpu-prof-name", `${b.name}.cpuprofile`]
        : [];
      // AB_NODE_FLAGS: extra flags for every bundle (e.g. --trace-deopt), their stdout to <profile>/<name>.out.
      const extra = (process.env.AB_NODE_FLAGS ?? "").split(" ").filter(Boolean);
      const out = profileDir ? openSync(join(profileDir, `${b.name}.out`), "w") : "ignore";
      const child = pinned(
        [process.execPath, ...BUNDLE_NODE_FLAGS, ...flags, ...extra, b.path],
        {
          LOG_LEVEL: "warn",
          REDIS_URL: `redis://127.0.0.1:${redisPort}`,
          REDIS_KEY_PREFIX: `${prefix}:`,
          BUS: "redis",
          BUS_PREFIX: `${prefix}-${i}`,
          SPOOL_DIR: join(dir, `spool-${i}`),
          PUBLIC_BASE_URL: `http://127.0.0.1:${gPort}`,
          REDIRECT_URL: `http://127.0.0.1:${rPort}`,
          MANAGEMENT_URL: "http://127.0.0.1:9",
          TRUST_PROXY: "1",
          PORT: String(rPort),
          OPS_PORT: String(opsPort),
          API_UPSTREAM_URL: `http://127.0.0.1:${gPort}`,
        },
        0,
        out,
      );
      children.push(child);
      await waitHttp(`http://127.0.0.1:${opsPort}/health`);
      servers.push({ name: b.name, url: `http://127.0.0.1:${rPort}`, child });
    }
    // Warm-up one at a time (JIT, every code cached), then the rounds.
    for (const s of servers) wrk(s.url, script, 10);
    const rows: string[] = [];
    const ratios: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) {
        const ra = wrk(a, script, seconds);
        const rb = wrk(s.url, script, seconds);
        const ratio = rb.rps / ra.rps;
        ratios[s.name] = [...(ratios[s.name] ?? []), ratio];
        const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
        const row = `| ${round + 1} | ${s.name} | ${Math.round(ra.rps)} | ${Math.round(rb.rps)} | ${(ratio * 100).toFixed(1)}% | ${rb.p99.toFixed(2)} ms | ${rb.non3xx} | ${rssMb(s.child.pid!)} | ${load} |`;
        console.log(row);
        rows.push(row);
      }
    }
    for (const s of servers)
      console.log(
        `${s.name}: median ratio ${(median(ratios[s.name]!) * 100).toFixed(1)}% of ${ratios[s.name]!.length}`,
      );
  } finally {
    for (const c of children.reverse()) await stop(c);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
