// `./kurz bench stack [--duration 20] [--links 300] [--connections 64] [--profile DIR]`: what a
// counted click costs the whole stack. The stack as `./kurz up` starts it
// (_up-stack.ts), --links links seeded through the API, wrk with a browser User-Agent (every click
// counted) for --duration seconds after a warm-up; then the time until analytics has counted every
// click served and management's running total has caught up. CPU of each process group (a service
// and its children, the supervisor, the stack's Redis, the Postgres backends connected to the stack's
// database, the client) from /proc/<pid>/stat over the load and the counting after it, per click
// served; analytics' also by thread (its JavaScript, V8's workers, chDB's query and merge threads).
// The client gets a core to itself when there are three or more (taskset); on two it shares them
// with the stack, which then has both, as in production on a 2-core host.
// --profile DIR: V8's CPU profile of analytics over the same span (_cpu-profile.mjs), its top
// self-time functions in the report and the .cpuprofile left in DIR.
// Run under `flock /tmp/bench.lock` on a shared machine.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { type CgroupReading, memoryCgroup } from "./_cgroup.ts";
import { cpuMsOf } from "./_cpu.ts";
import { summariseProfile } from "./_cpuprofile-summary.ts";
import { members } from "./_process-tree.ts";
import { productionEnv } from "./_stack-services.ts";
import {
  type Auth,
  BROWSER,
  createAccount,
  importCsv,
  isAlive,
  parseWrk,
  SERVICES,
  type Stack,
  startUp,
} from "./_up-stack.ts";

export const description = "req/s and CPU per counted click of every process of the whole stack under wrk";

const exec = promisify(execFile);
const WARM_UP_SECONDS = 5;
const COUNT_TIMEOUT_MS = 180_000;
const profilePreload = pathToFileURL(resolve(import.meta.dirname, "_cpu-profile.mjs")).href;

/** wrk for `seconds` over the seeded links (`/sb0` … ), a browser's User-Agent on every request. */
function clickLoad(s: Stack, links: number, connections: number, clientCpus: string | undefined) {
  const script = resolve(s.dataDir, "clicks.lua");
  writeFileSync(
    script,
    [
      `math.randomseed(${Date.now() % 100_000})`,
      `local headers = { ["User-Agent"] = "${BROWSER}" }`,
      `request = function() return wrk.format("GET", "/sb" .. math.random(0, ${links - 1}), headers) end`,
      "",
    ].join("\n"),
  );
  return (seconds: number) =>
    exec(
      ...wrkCommand(clientCpus, [
        "-t2",
        `-c${connections}`,
        `-d${seconds}s`,
        "--latency",
        "-s",
        script,
        s.origin,
      ]),
      { maxBuffer: 1 << 20 },
    ).then((r) => parseWrk(r.stdout));
}

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string", default: "20" },
      links: { type: "string", default: "300" },
      connections: { type: "string", default: "64" },
      profile: { type: "string" },
      "cgroup-mb": { type: "string" },
    },
    strict: false,
  });
  const duration = Number(values.duration);
  const links = Number(values.links);
  const connections = Number(values.connections);
  const profileDir = typeof values.profile === "string" ? resolve(values.profile) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const cores = availableParallelism();
  const pin = cores >= 3 ? { stack: `0-${cores - 2}`, client: String(cores - 1) } : undefined;
  const db = await createMigratedDatabase("stackbench");
  const dbName = new URL(db.url).pathname.slice(1);
  const spool = productionEnv("stack");
  // Kurz's processes held to this much memory together by the kernel (_cgroup.ts), as on a server that size.
  const cgroupMb = typeof values["cgroup-mb"] === "string" ? Number(values["cgroup-mb"]) : undefined;
  const cgroup = cgroupMb ? memoryCgroup(`kurz-stack-${process.pid}-${Date.now()}`, cgroupMb) : undefined;
  let stack: Stack | undefined;
  try {
    stack = await startUp(db.url, spool, {
      name: "stack",
      cpus: pin?.stack,
      env: (): Record<string, string> =>
        profileDir
          ? {
              NODE_OPTIONS: `--import=${profilePreload}`,
              KURZ_CPU_PROFILE_DIR: profileDir,
              KURZ_CPU_PROFILE_SERVICE: "analytics",
            }
          : {},
      ...(cgroup && { wrap: cgroup.wrap }),
    });
    const s = stack;
    for (const pid of s.redisPid()) cgroup?.release(pid);
    const account = await createAccount(db.url, "stackbench");
    const auth = { authorization: `Bearer ${account.api_key}` };
    const rows = Array.from({ length: links }, (_, i) => `https://example.com/stack/${i},sb${i}`);
    const counts = await importCsv(s, auth, `url,alias\n${rows.join("\n")}\n`);
    if (counts.created !== links) throw new Error(`seeding created ${JSON.stringify(counts)}`);
    const wrk = clickLoad(s, links, connections, pin?.client);
    const warm = await wrk(WARM_UP_SECONDS);
    const before = await waitCounted(s, auth, warm.requests - warm.bad, Date.now());
    const load1Before = loadavg()[0]!;
    const cpuBefore = readCpu(s, dbName);
    const threadsBefore = threadCpu(s.pids().analytics!);
    const writesBefore = await clickWrites(s);
    if (profileDir) process.kill(s.pids().analytics!, "SIGUSR2");
    const load = await wrk(duration);
    const loadEnd = Date.now();
    const load1 = loadavg()[0]!;
    const served = load.requests - load.bad;
    const counted = await waitCounted(
      s,
      auth,
      before.analytics + served,
      loadEnd,
      before.management + served,
    );
    const cpuAfter = readCpu(s, dbName);
    const writesAfter = await clickWrites(s);
    const threads = threadDelta(s.pids().analytics!, threadsBefore, threadCpu(s.pids().analytics!));
    const profile = profileDir ? await stopProfile(s, profileDir) : undefined;
    const alive = SERVICES.filter((n) => isAlive(s.pids()[n]));
    const restarts = (s.output().match(/exited unexpectedly/g) ?? []).length;
    return report({
      duration,
      links,
      connections,
      cores,
      pin,
      load,
      served,
      counted: {
        analytics: counted.analytics - before.analytics,
        management: counted.management - before.management,
        analyticsSeconds: counted.analyticsAt,
        managementSeconds: counted.managementAt,
      },
      cpu: cpuDelta(cpuBefore, cpuAfter),
      threads,
      writes: {
        count: writesAfter.count - writesBefore.count,
        clicks: writesAfter.clicks - writesBefore.clicks,
        seconds: writesAfter.seconds - writesBefore.seconds,
      },
      load1Before,
      load1,
      profile,
      profileDir,
      alive,
      restarts,
      cgroup: cgroup && { limitBytes: cgroup.limitBytes, end: cgroup.read(), peak: cgroup.peak() },
    });
  } finally {
    await stack?.stop();
    try {
      cgroup?.remove();
    } catch {
      // a process still ending; the empty group is harmless
    }
    await db.drop();
    rmSync(spool.SPOOL_DIR!, { recursive: true, force: true });
  }
}

const wrkCommand = (cpu: string | undefined, args: string[]): [string, string[]] =>
  cpu ? ["taskset", ["-c", cpu, "wrk", ...args]] : ["wrk", args];

/** CPU ms of every process of each group now, by pid, and the client's (the bench's reaped children). */
function readCpu(stack: Stack, dbName: string): Record<string, Map<number, number>> {
  const groups = members(stack.pids(), stack.redisPid());
  const out: Record<string, Map<number, number>> = {};
  const read = (pids: number[]) =>
    new Map(pids.flatMap((pid) => (cpuMsOf(pid) === undefined ? [] : [[pid, cpuMsOf(pid)!] as const])));
  for (const [group, pids] of Object.entries(groups)) out[group] = read(pids);
  out.redis = read(stack.redisPid());
  out.postgres = read(postgresBackendsOf(dbName));
  out["client (wrk)"] = new Map([[process.pid, childrenCpuMs()]]);
  return out;
}

/**
 * Analytics' writes of clicks to ClickHouse so far, from its /metrics: how many, the clicks in them,
 * and their time (wall, each a batch's rows and rollups).
 */
async function clickWrites(stack: Stack): Promise<{ count: number; clicks: number; seconds: number }> {
  const text = await (await fetch(`${stack.analyticsOps}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, "m").exec(text)?.[1] ?? 0);
  return {
    count: value("clickhouse_click_insert_batch_clicks_count"),
    clicks: value("clickhouse_click_insert_batch_clicks_sum"),
    seconds: value("clickhouse_click_insert_duration_seconds_sum"),
  };
}

/** CPU ms of each thread of a process now, by thread id, with the thread's name (comm). */
function threadCpu(pid: number): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(tid), { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/**
 * CPU seconds by thread name between two readings (ClickHouse and V8 name their threads by pool);
 * threads that ended meanwhile are not in the second reading, so their time is missing here and the
 * process's own figure is the whole.
 */
function threadDelta(
  pid: number,
  a: Map<number, { name: string; ms: number }>,
  b: Map<number, { name: string; ms: number }>,
): [string, number][] {
  const byName = new Map<string, number>();
  for (const [tid, t] of b) {
    // The thread whose id is the process's is its main thread, where JavaScript runs.
    const name = tid === pid ? `${t.name} (main thread)` : t.name;
    byName.set(name, (byName.get(name) ?? 0) + (t.ms - (a.get(tid)?.ms ?? 0)) / 1000);
  }
  return [...byName].filter(([, s]) => s >= 0.01).sort((x, y) => y[1] - x[1]);
}

/** CPU seconds per group between two readings; a process that appeared meanwhile counts whole. */
function cpuDelta(a: Record<string, Map<number, number>>, b: Record<string, Map<number, number>>) {
  const out: Record<string, number> = {};
  for (const [group, after] of Object.entries(b)) {
    let ms = 0;
    for (const [pid, v] of after) ms += v - (a[group]?.get(pid) ?? 0);
    out[group] = ms / 1000;
  }
  return out;
}

/**
 * The Postgres backends serving the stack's database: their title (cmdline) names it. The server's
 * own background processes are shared with every other database of that server and left out.
 */
function postgresBackendsOf(dbName: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.startsWith("postgres:") && cmd.includes(` ${dbName} `)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** CPU ms of this process's waited-for children (cutime + cstime): wrk, once it has exited. */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

interface Counted {
  analytics: number;
  management: number;
  analyticsAt?: number;
  managementAt?: number;
}

/**
 * Polls analytics' summary and management's account total every 100 ms until each reaches its target
 * (management's too when given, else until analytics' is steady); each total and the seconds from
 * `since` to the reading that reached it.
 */
async function waitCounted(
  stack: Stack,
  auth: Auth,
  analyticsTarget: number,
  since: number,
  managementTarget?: number,
): Promise<Counted> {
  const total = async (path: string) => {
    const res = await fetch(`${stack.origin}/api/v1/${path}`, { headers: auth });
    return ((await res.json()) as { data?: { total_clicks?: number } }).data?.total_clicks ?? 0;
  };
  const c: Counted = { analytics: 0, management: 0 };
  for (const deadline = Date.now() + COUNT_TIMEOUT_MS; Date.now() < deadline; await sleep(100)) {
    const [a, m] = await Promise.all([total("analytics/summary"), total("account")]);
    c.analytics = a;
    c.management = m;
    const secs = (Date.now() - since) / 1000;
    if (c.analyticsAt === undefined && a >= analyticsTarget) c.analyticsAt = secs;
    if (c.managementAt === undefined && m >= (managementTarget ?? a) && c.analyticsAt !== undefined)
      c.managementAt = secs;
    if (c.analyticsAt !== undefined && c.managementAt !== undefined) {
      // wrk counts the requests it saw answered; the few in flight when it stopped may be counted too.
      await sleep(1_000);
      c.analytics = await total("analytics/summary");
      c.management = await total("account");
      return c;
    }
  }
  return c;
}

async function stopProfile(stack: Stack, dir: string) {
  const pid = stack.pids().analytics!;
  const file = resolve(dir, `analytics-${pid}.cpuprofile`);
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 100 && !existsSync(file); i++) await sleep(100);
  return existsSync(file)
    ? { file, ...summariseProfile(JSON.parse(readFileSync(file, "utf8")), 25) }
    : undefined;
}

type Report = {
  duration: number;
  links: number;
  connections: number;
  cores: number;
  pin: { stack: string; client: string } | undefined;
  load: ReturnType<typeof parseWrk>;
  served: number;
  counted: { analytics: number; management: number; analyticsSeconds?: number; managementSeconds?: number };
  cpu: Record<string, number>;
  threads: [string, number][];
  writes: { count: number; clicks: number; seconds: number };
  load1Before: number;
  load1: number;
  profile: Awaited<ReturnType<typeof stopProfile>>;
  profileDir: string | undefined;
  alive: string[];
  restarts: number;
  cgroup: { limitBytes: number; end: CgroupReading; peak: number | undefined } | undefined;
};

const mbOf = (b: number | undefined) => (b === undefined ? "–" : String(Math.round(b / 2 ** 20)));
const secs = (n: number | undefined) => (n === undefined ? "not within 180 s" : `${n.toFixed(1)} s`);

function report(r: Report): string {
  const order = [
    "analytics",
    "redirect",
    "management",
    "gateway",
    "supervisor",
    "redis",
    "postgres",
    "client (wrk)",
  ];
  const total = order.reduce((a, g) => a + (r.cpu[g] ?? 0), 0);
  const perClickNumber = (sec: number) => (sec * 1e6) / Math.max(1, r.served);
  const perClick = (sec: number) => perClickNumber(sec).toFixed(1);
  const ms = (v: number | undefined) => (v === undefined ? "–" : `${v.toFixed(2)} ms`);
  const lines = [
    "## stack (a counted click across the whole stack)",
    "",
    `\`./kurz bench stack --duration ${r.duration} --links ${r.links} --connections ${r.connections}${r.profileDir ? " --profile DIR" : ""}\` — the stack as \`./kurz up\` starts it`,
    `(infra/local/up.ts; each service from its bundle, NODE_ENV=production), ${r.links} links seeded through the API, wrk -t2 -c${r.connections} with a browser User-Agent`,
    `for ${r.duration} s after a ${WARM_UP_SECONDS} s warm-up whose clicks were counted first. ${r.pin ? `Stack on CPUs ${r.pin.stack}, wrk on CPU ${r.pin.client} (taskset).` : `${r.cores} cores: wrk shares them with the stack (no pinning; the stack has both, as on a 2-core host).`}`,
    `CPU from /proc/<pid>/stat over the load and until every click was counted; per click served.${r.profileDir ? " Analytics ran under V8's sampling profiler, which costs it CPU of its own." : ""}`,
    "",
    "| req/s | p50 | p99 | clicks served | counted by analytics | counted in management's totals | last click counted (analytics / management) after the load |",
    "|---|---|---|---|---|---|---|",
    `| ${Math.round(r.load.rps).toLocaleString("en")} | ${ms(r.load.p50)} | ${ms(r.load.p99)} | ${r.served.toLocaleString("en")} | ${r.counted.analytics.toLocaleString("en")} | ${r.counted.management.toLocaleString("en")} | ${secs(r.counted.analyticsSeconds)} / ${secs(r.counted.managementSeconds)} |`,
    "",
    "| process | CPU s | µs per click |",
    "|---|---|---|",
    ...order.map((g) => `| ${g} | ${(r.cpu[g] ?? 0).toFixed(2)} | ${perClick(r.cpu[g] ?? 0)} |`),
    `| **all** | **${total.toFixed(2)}** | **${perClick(total)}** |`,
    "",
    `Postgres: the backends connected to the stack's database (the server's background processes, shared with other databases, left out). Not 2xx/3xx: ${r.load.bad}; socket errors: ${r.load.errors}.`,
    `Services alive at the end: ${r.alive.join(", ")}; restarts seen: ${r.restarts}. Load average (1 min) before the load ${r.load1Before.toFixed(1)}, at its end ${r.load1.toFixed(1)}.`,
    ...(r.cgroup
      ? [
          `In a memory cgroup of ${mbOf(r.cgroup.limitBytes)} MB (\`--cgroup-mb\`, _cgroup.ts; Kurz's processes together, the stack's Redis moved out): highest charge ${mbOf(r.cgroup.peak)} MB, ${mbOf(r.cgroup.end.usage)} MB at the end (${mbOf(r.cgroup.end.anon)} anonymous); ${mbOf(r.cgroup.end.refaultBytes)} MB of file pages read again after reclaim took them; ${r.cgroup.end.oomKills} processes killed out of memory.`,
        ]
      : []),
    "",
    `Analytics' writes to ClickHouse over the same span (its /metrics): ${r.writes.count.toLocaleString("en")} writes of ${r.writes.clicks.toLocaleString("en")} clicks, ${Math.round(r.writes.clicks / Math.max(1, r.writes.count)).toLocaleString("en")} a write on average, ${((r.writes.seconds * 1000) / Math.max(1, r.writes.count)).toFixed(1)} ms each (wall, ${r.writes.seconds.toFixed(1)} s in all).`,
    `Analytics' CPU by thread (its threads alive at the end; ${(r.cpu.analytics ?? 0).toFixed(2)} s in all): ${r.threads.map(([n, sec]) => `${n} ${sec.toFixed(2)} s (${perClick(sec)} µs/click)`).join(", ")}.`,
    "",
  ];
  if (r.profile) {
    // Samples are wall time: on busy cores the thread is often descheduled inside a function. Each
    // function's share of the busy samples times the main thread's CPU is its CPU, near enough.
    const mainCpu = r.threads.find(([n]) => n.endsWith("(main thread)"))?.[1] ?? 0;
    const busy = Math.max(1, r.profile.busyMs);
    lines.push(
      `Analytics' V8 profile over the same span (${r.profile.file}): ${(r.profile.totalMs / 1000).toFixed(1)} s sampled, ${(r.profile.idleMs / 1000).toFixed(1)} s idle; top self time (µs per click: the share of the busy samples times the main thread's ${mainCpu.toFixed(2)} s of CPU):`,
      "",
      "| self ms (wall) | share of busy | ≈ µs CPU per click | function | where |",
      "|---|---|---|---|---|",
      ...r.profile.top.map(
        (f) =>
          `| ${Math.round(f.selfMs)} | ${((f.selfMs * 100) / busy).toFixed(1)}% | ${((f.selfMs / busy) * perClickNumber(mainCpu)).toFixed(2)} | \`${f.name}\` | ${f.where} |`,
      ),
      "",
    );
  }
  return lines.join("\n");
}
