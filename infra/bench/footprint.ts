// `./kurz bench footprint`: the memory of Kurz's own processes (the supervisor and the four services,
// each with any process it starts; Postgres and Redis apart) on a stack started as `./kurz up` starts
// it: the supervisor from its bundle (infra/local/up-bundle.ts) as a child, on ports, a Redis and a data directory of its own, the services
// from their bundles with NODE_ENV=production. RSS is read every 250 ms:
//   - idle: --idle-seconds (default 60) after the stack is up, before any request: a stack at rest, not
//     one just started (in its first seconds each service still holds its start's garbage, and V8
//     shrinks a young generation grown during start only after a while without work);
//   - under load for --load-seconds (default 60): wrk at the public origin over 1,000 seeded links as
//     fast as it goes (clicks flowing to analytics), four API clients reading and creating links, one
//     analytics client (@kurz/sdk's, which asks a 503 again after its Retry-After) asking for 30 days
//     (summary, a link's series), one 10,000-row CSV import and
//     one links export, all through the API with an API key;
//   - settled: --settle-seconds (default 60) after the load, the last reading.
// Then it checks the run: no service died or restarted, every API and analytics answer right, the import
// and the export whole, and every click counted (the redirect's published clicks, none dropped, all in
// analytics' total and at least the redirects wrk saw). With --check a failed check fails the run.
// --import-rows (default 10,000) and --idle-seconds make a cheaper run: the memory-floor
// test (infra/local/memory-floor.test.ts) runs it at KURZ_MEMORY_MB=1024 for a few seconds of load.
// Every Node process of the stack preloads _memory-dump.mjs, so at the end of each phase each writes
// its V8 breakdown (process.memoryUsage(), heap spaces, heap limit) on SIGUSR2.
// Run under `flock /tmp/bench.lock` on a shared machine.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, release, tmpdir } from "node:os";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs, promisify } from "node:util";
import { migrateDatabase } from "@kurz/db";
import { createKurzClient, KurzApiError } from "@kurz/sdk";
import { createTestDatabase } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { type PrivatePostgres, startPrivatePostgres } from "@kurz/testing/private-servers";
import { MEMORY_DEFAULT_MB } from "../build/memory.ts";
import { type CgroupReading, type MemoryCgroup, memoryCgroup } from "./_cgroup.ts";
import { members, type Sample, sampleGroups } from "./_process-tree.ts";
import { added, type Breakdown, PARTS, smapsOfAll } from "./_smaps.ts";
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

export const description =
  "memory of the supervisor and every service: idle, peak under a mixed load, settled after it";

const exec = promisify(execFile);
const preload = pathToFileURL(resolve(import.meta.dirname, "_memory-dump.mjs")).href;
const GROUPS = ["supervisor", ...SERVICES] as const;
const SEEDED = 1_000;
const API_CLIENTS = 4;
const WRK_CONNECTIONS = 32;
const MB = 2 ** 20;
/** How long clicksCounted waits for a figure to move, and in all. */
const STALL_MS = 30_000;
const COUNT_MAX_MS = 180_000;

export interface FootprintOptions {
  loadSeconds: number;
  settleSeconds: number;
  /** Before the idle reading. */
  idleSeconds: number;
  /** The CSV import during the load. */
  importRows: number;
  /** Set on the stack's environment, e.g. KURZ_MEMORY_MB. */
  env?: Record<string, string>;
  /**
   * Ask the kernel to reclaim every process's clean file pages after the idle reading and again after
   * the settled one (_pageout.py): the readings then show what the processes use, not what they hold.
   */
  reclaim?: boolean;
  /**
   * Drop the system's page cache (root: /proc/sys/vm/drop_caches) just before the stack starts, as on
   * a server's first start after boot. A memory cgroup is charged for a file page by the first process
   * that reads it: without this, the pages of chDB's library and the bundles that an earlier process
   * read stay charged outside the group, and the group holds less than a fresh server would.
   */
  cold?: boolean;
  /**
   * Run Kurz's processes in a memory cgroup of this many MB (_cgroup.ts): the kernel holds them to it
   * together, as a server or container of that size would, reclaiming file pages and killing a process
   * when that is not enough.
   */
  cgroupMb?: number;
  /**
   * A whole server of this many MB: Kurz's processes, a Postgres of the run's own (started for it, with
   * its default settings) and the stack's Redis in one memory cgroup of that size.
   */
  serverMb?: number;
}

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      "load-seconds": { type: "string", default: "60" },
      "settle-seconds": { type: "string", default: "60" },
      "idle-seconds": { type: "string", default: "60" },
      "import-rows": { type: "string", default: "10000" },
      check: { type: "boolean", default: false },
      reclaim: { type: "boolean", default: false },
      cold: { type: "boolean", default: false },
      "cgroup-mb": { type: "string" },
      "server-mb": { type: "string" },
    },
    strict: false,
  });
  const opts: FootprintOptions = {
    loadSeconds: Number(values["load-seconds"]),
    settleSeconds: Number(values["settle-seconds"]),
    idleSeconds: Number(values["idle-seconds"]),
    importRows: Number(values["import-rows"]),
    reclaim: values.reclaim === true,
    cold: values.cold === true,
    ...(typeof values["cgroup-mb"] === "string" && { cgroupMb: Number(values["cgroup-mb"]) }),
    ...(typeof values["server-mb"] === "string" && { serverMb: Number(values["server-mb"]) }),
  };
  const measured = await measureFootprint(opts);
  const text = report(measured);
  if (values.check && measured.failures.length > 0)
    throw new Error(`${text}\nfootprint checks failed:\n- ${measured.failures.join("\n- ")}`);
  return text;
}

type Result = Awaited<ReturnType<typeof mixedLoad>>;

/** A run's readings, its results and the checks it failed (one sentence each). */
export interface Footprint extends FootprintOptions {
  loadMs: number;
  samples: Sample[];
  dumps: Record<string, Record<string, Dump | undefined>>;
  /** Where each group's pages are at the end of each phase (_smaps.ts). */
  smaps: Record<string, Record<string, Breakdown | undefined>>;
  result: Result;
  clicks: Awaited<ReturnType<typeof clicksCounted>>;
  alive: string[];
  restarts: number;
  /** Services whose process at the end is not the one that started. */
  replaced: string[];
  /** With cgroupMb: the group's readings by phase. */
  cgroup?: CgroupPhases;
  failures: string[];
}

/** Starts the stack, drives the load, reads the memory and checks the answers (failures: one sentence each). */
export async function measureFootprint(opts: FootprintOptions): Promise<Footprint> {
  const { loadSeconds, settleSeconds } = opts;
  const limitMb = opts.serverMb ?? opts.cgroupMb;
  const cgroup = limitMb ? memoryCgroup(`kurz-footprint-${process.pid}-${Date.now()}`, limitMb) : undefined;
  let pg: PrivatePostgres | undefined;
  let db: Awaited<ReturnType<typeof createMigratedDatabase>> | undefined;
  const spool = productionEnv("footprint");
  let stack: Stack | undefined;
  try {
    if (opts.serverMb && cgroup) {
      pg = await startPrivatePostgres();
      // Every process the server has so far; the backends it starts later are born in the group.
      for (const pid of members({ pg: pg.postmasterPid() }, []).pg ?? []) cgroup.join(pid);
    }
    db = pg
      ? await createTestDatabase("footprint", { migrate: migrateDatabase, adminUrl: pg.adminUrl })
      : await createMigratedDatabase("footprint");
    if (opts.cold) await dropPageCache();
    stack = await startUp(
      db.url,
      { ...spool, ...opts.env },
      {
        name: "footprint",
        env: (dataDir) => {
          mkdirSync(resolve(dataDir, "memory"));
          return { KURZ_MEMORY_DUMP_DIR: resolve(dataDir, "memory"), NODE_OPTIONS: `--import=${preload}` };
        },
        ...(cgroup && { wrap: cgroup.wrap }),
      },
    );
    const s = stack;
    // The stack's Redis stands for the machine's, which is not Kurz's to count (but a whole server's).
    if (!opts.serverMb) for (const pid of s.redisPid()) cgroup?.release(pid);
    const startPids = s.pids();
    const rss = sampleGroups(s.pids, s.redisPid);
    const charged = cgroup ? sampleCgroup(cgroup) : undefined;
    const sampler = {
      setPhase(phase: string) {
        rss.setPhase(phase);
        charged?.setPhase(phase);
      },
      members: () => rss.members(),
      stop() {
        rss.stop();
        charged?.stop();
      },
      samples: rss.samples,
    };
    await sleep(opts.idleSeconds * 1_000);
    sampler.setPhase("setup");
    const dumps: Record<string, Record<string, Dump | undefined>> = { idle: await dumpAll(s) };
    const smaps: Record<string, Record<string, Breakdown | undefined>> = {
      idle: smapsNow(sampler.members()),
    };
    if (opts.reclaim) {
      await reclaim(sampler.members());
      smaps["idle, reclaimed"] = smapsNow(sampler.members());
    }
    const account = await createAccount(db.url, "footprint");
    const auth = { authorization: `Bearer ${account.api_key}` };
    const seeded = await seedLinks(s, auth);
    sampler.setPhase("load");
    const started = Date.now();
    const result = await mixedLoad(s, auth, seeded, loadSeconds, opts.importRows);
    const loadMs = Date.now() - started;
    dumps.load = await dumpAll(s);
    smaps.load = smapsNow(sampler.members());
    sampler.setPhase("settle");
    const clicks = await clicksCounted(s, auth);
    await sleep(settleSeconds * 1_000);
    dumps.settled = await dumpAll(s);
    smaps.settled = smapsNow(sampler.members());
    if (opts.reclaim) {
      // The settled reading is the last before this.
      sampler.setPhase("reclaimed");
      await reclaim(sampler.members());
      smaps["settled, reclaimed"] = smapsNow(sampler.members());
    }
    sampler.stop();
    const alive = SERVICES.filter((n) => isAlive(s.pids()[n]));
    const restarts = (s.output().match(/exited unexpectedly/g) ?? []).length;
    const replaced = SERVICES.filter((n) => s.pids()[n] !== startPids[n]);
    const measured: Omit<Footprint, "failures"> = {
      ...opts,
      loadMs,
      samples: sampler.samples,
      dumps,
      smaps,
      result,
      clicks,
      alive,
      restarts,
      replaced,
      ...(charged && { cgroup: charged.phases }),
    };
    const failures = failedChecks(measured);
    if (failures.length > 0) {
      // The services' own lines (the supervisor prefixes each with its service) say why: kept past the run.
      const log = resolve(tmpdir(), `kurz-footprint-${Date.now()}.log`);
      writeFileSync(log, s.output());
      failures.push(`the stack's output is in ${log}`, ...warnings(s.output()));
    }
    return { ...measured, failures };
  } finally {
    await stack?.stop();
    await db?.drop();
    await pg?.stop();
    try {
      cgroup?.remove();
    } catch {
      // a process still ending; the empty group is harmless
    }
    rmSync(spool.SPOOL_DIR!, { recursive: true, force: true });
  }
}

/** A memory cgroup's readings: for each phase its last reading and its highest usage. */
export interface CgroupPhases {
  limitBytes: number;
  byPhase: Record<string, { last: CgroupReading; maxUsage: number }>;
  /** The kernel's own highest usage over the whole run, where it keeps one. */
  peak?: number;
}

/** Reads the group every 250 ms, by phase as the RSS sampler's (the reading before a switch is the phase's last). */
function sampleCgroup(cg: MemoryCgroup) {
  let phase = "start";
  const phases: CgroupPhases = { limitBytes: cg.limitBytes, byPhase: {} };
  const take = () => {
    const r = cg.read();
    const before = phases.byPhase[phase]?.maxUsage ?? 0;
    phases.byPhase[phase] = { last: r, maxUsage: Math.max(before, r.usage) };
  };
  take();
  const timer = setInterval(take, 250);
  timer.unref();
  return {
    phases,
    setPhase(next: string) {
      take();
      phase = next;
      take();
    },
    stop() {
      clearInterval(timer);
      take();
      const peak = cg.peak();
      if (peak !== undefined) phases.peak = peak;
    },
  };
}

/** Writes dirty pages out, then drops every clean page the kernel can (those no process maps). */
async function dropPageCache(): Promise<void> {
  await exec("sync", []);
  try {
    writeFileSync("/proc/sys/vm/drop_caches", "3");
  } catch (error) {
    throw new Error(`--cold drops the page cache, which needs root (/proc/sys/vm/drop_caches): ${error}`);
  }
}

/** What memory pressure would take: every clean file page no other process maps (_pageout.py). */
async function reclaim(groups: Record<string, number[]>): Promise<void> {
  await exec("python3", [
    resolve(import.meta.dirname, "_pageout.py"),
    ...Object.values(groups).flat().map(String),
  ]);
  // The pages a running process touches again fault back in; a few seconds let them.
  await sleep(5_000);
}

const smapsNow = (groups: Record<string, number[]>) =>
  Object.fromEntries(Object.entries(groups).map(([g, pids]) => [g, smapsOfAll(pids)]));

interface Dump {
  usage: NodeJS.MemoryUsage;
  heapLimit: number;
  malloced: number;
  spaces: Record<string, { size: number; used: number; physical: number }>;
  /** The event loop's delay and the collections since the dump before (ms). */
  loop?: { maxMs: number; p99Ms: number };
  gc?: { count: number; ms: number; maxMs: number };
}

/** Asks every Node process of the stack for its breakdown (_memory-dump.mjs) and reads the answers. */
async function dumpAll(stack: Stack): Promise<Record<string, Dump | undefined>> {
  const pids = stack.pids();
  const asked = Date.now();
  for (const pid of Object.values(pids)) if (isAlive(pid)) process.kill(pid, "SIGUSR2");
  const read = (pid: number): Dump | undefined => {
    const file = resolve(stack.dataDir, "memory", `${pid}.json`);
    if (!existsSync(file)) return undefined;
    const dump = JSON.parse(readFileSync(file, "utf8")) as Dump & { at: number };
    return dump.at >= asked ? dump : undefined;
  };
  for (let i = 0; i < 50 && Object.values(pids).some((p) => !read(p)); i++) await sleep(100);
  return Object.fromEntries(Object.entries(pids).map(([n, p]) => [n, read(p)]));
}

/** SEEDED links with codes fp0… for wrk; their ids for the API and analytics clients. */
async function seedLinks(stack: Stack, auth: Auth): Promise<string[]> {
  const rows = Array.from({ length: SEEDED }, (_, i) => `https://example.com/seeded/${i},fp${i}`);
  const counts = await importCsv(stack, auth, `url,alias\n${rows.join("\n")}\n`);
  if (counts.created !== SEEDED) throw new Error(`seeding created ${JSON.stringify(counts)}`);
  const res = await fetch(`${stack.origin}/api/v1/links?per_page=100`, { headers: auth });
  return ((await res.json()) as { data: { id: string }[] }).data.map((l) => l.id);
}

/**
 * The services' last warnings and errors, for a failure's report: the log file
 * stays on the machine that ran it, while a CI run keeps only what the test prints.
 */
function warnings(output: string): string[] {
  const lines = output.split("\n").filter((l) => /"level":"(warn|error|fatal)"/.test(l));
  return lines.slice(-8).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l));
}

interface Tally {
  ok: number;
  wrong: number;
  /** Requests sent again after a 429 or 503 (analytics' client only). */
  retried: number;
  samples: string[];
}

const tally = (): Tally => ({ ok: 0, wrong: 0, retried: 0, samples: [] });
function count(t: Tally, ok: boolean, what: string) {
  if (ok) t.ok++;
  else {
    t.wrong++;
    if (t.samples.length < 3) t.samples.push(what);
  }
}

/** Everything at once for `seconds`: wrk, the API clients, the analytics client, one import, one export. */
async function mixedLoad(stack: Stack, auth: Auth, ids: string[], seconds: number, importRowCount: number) {
  const until = Date.now() + seconds * 1_000;
  const script = resolve(stack.dataDir, "redirect.lua");
  writeFileSync(
    script,
    [
      `math.randomseed(${Date.now() % 100_000})`,
      `local headers = { ["User-Agent"] = "${BROWSER}" }`,
      `request = function() return wrk.format("GET", "/fp" .. math.random(0, ${SEEDED - 1}), headers) end`,
      "",
    ].join("\n"),
  );
  const wrk = exec("wrk", ["-t1", `-c${WRK_CONNECTIONS}`, `-d${seconds}s`, "-s", script, stack.origin], {
    maxBuffer: 1 << 20,
  });
  const api = tally();
  const analytics = tally();
  const json = { ...auth, "content-type": "application/json" };
  const apiClient = async (c: number) => {
    for (let i = 0; Date.now() < until; i++) {
      const id = ids[(c * 31 + i) % ids.length]!;
      const step = i % 3;
      const res =
        step === 0
          ? await fetch(`${stack.origin}/api/v1/links/${id}`, { headers: auth })
          : step === 1
            ? await fetch(`${stack.origin}/api/v1/links?per_page=20&page=${1 + (i % 5)}`, { headers: auth })
            : await fetch(`${stack.origin}/api/v1/links`, {
                method: "POST",
                headers: json,
                body: JSON.stringify({ url: `https://example.com/created/${c}/${i}`, title: "footprint" }),
              });
      const body = (await res.json()) as { success?: boolean; data?: { id?: string } | unknown[] };
      const ok = res.status === (step === 2 ? 201 : 200) && body.success === true && body.data !== undefined;
      count(api, ok, `${res.status} ${JSON.stringify(body).slice(0, 120)}`);
    }
  };
  const day = (d: Date) => d.toISOString().slice(0, 10);
  // The API's own client, as a program would call it: a 503 is asked again after its Retry-After,
  // three tries in all (each wait counted). At the minimum budget analytics answers 503 now and then
  // when management, busy with the import, does not list the account's links within analytics' 2 s
  // (run log, 2026-12-03); an answer still refused at the third try is wrong.
  const kurz = createKurzClient({
    baseUrl: stack.origin,
    headers: auth,
    retry: {
      sleep: (ms) => {
        analytics.retried++;
        return sleep(ms);
      },
    },
  });
  const query = { start: day(new Date(Date.now() - 29 * 86_400_000)), end: day(new Date()) };
  const analyticsClient = async () => {
    for (let i = 0; Date.now() < until; i++) {
      const id = ids[i % ids.length]!;
      const what = i % 2 === 0 ? "summary" : id;
      try {
        if (i % 2 === 0) await kurz.v1.getAnalyticsSummary({ query });
        else await kurz.v1.getLinkAnalytics({ params: { link_id: id }, query });
        count(analytics, true, what);
      } catch (err) {
        count(
          analytics,
          false,
          err instanceof KurzApiError ? `${err.status} ${what}: ${err.message}` : String(err),
        );
      }
    }
  };
  const importRows = Array.from({ length: importRowCount }, (_, i) => `https://example.com/imported/${i}`);
  // A failed import is a failed check with its reason, not the end of the run (what the memory was, is the point).
  const imported = sleep(2_000)
    .then(() => importCsv(stack, auth, `url\n${importRows.join("\n")}\n`))
    .catch((error: unknown): Record<string, number | string> => ({ error: String(error) }));
  const exported = sleep((seconds * 1_000) / 2).then(async () => {
    const res = await fetch(`${stack.origin}/api/v1/exports/links?format=csv`, { headers: auth });
    const text = await res.text();
    return { status: res.status, rows: text.split("\n").filter(Boolean).length - 1, mb: text.length / MB };
  });
  const [wrkOut, , , importCounts, exportResult] = await Promise.all([
    wrk,
    Promise.all(Array.from({ length: API_CLIENTS }, (_, c) => apiClient(c))),
    analyticsClient(),
    imported,
    exported,
  ]);
  return { wrk: parseWrk(wrkOut.stdout), api, analytics, importCounts, exportResult, load1: loadavg()[0]! };
}

/** One sample of a Prometheus text exposition (0 when absent). */
const metric = (text: string, name: string) =>
  Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? 0);

/**
 * The clicks the redirect published (once none waits in its buffer or spool) and analytics' all-time
 * total for the account, polled until they agree: every redirect wrk drove is a browser's, so each is a
 * click analytics must count. It gives up when neither figure has moved for STALL_MS, or after
 * COUNT_MAX_MS in all: how long a backlog takes depends on how fast the host served the load and how
 * much CPU analytics gets beside everything else, while a stall is what the check is for.
 */
async function clicksCounted(stack: Stack, auth: Auth) {
  let published = 0;
  let dropped = 0;
  let waiting = 0;
  let counted = 0;
  let answer = "";
  let progress = "";
  const started = Date.now();
  let movedAt = started;
  for (
    const until = Date.now() + COUNT_MAX_MS;
    Date.now() < until && Date.now() - movedAt < STALL_MS;
    await sleep(500)
  ) {
    const text = await (await fetch(`${stack.redirectOps}/metrics`)).text();
    published = metric(text, "clicks_published_total");
    dropped = metric(text, "clicks_dropped_total");
    waiting = metric(text, "clicks_buffered") + metric(text, "clicks_spooled");
    const res = await fetch(`${stack.origin}/api/v1/analytics/summary`, { headers: auth });
    const body = await res.text();
    // The last answer without a total, to say why when analytics never agreed.
    counted = (JSON.parse(body) as { data?: { total_clicks?: number } }).data?.total_clicks ?? -1;
    if (counted < 0) answer = `${res.status} ${body.slice(0, 200)}`;
    if (waiting === 0 && counted === published) break;
    const now = `${published} ${waiting} ${counted}`;
    if (now !== progress) [progress, movedAt] = [now, Date.now()];
  }
  return { published, dropped, waiting, counted, answer, seconds: (Date.now() - started) / 1000 };
}

const mb = (b: number | undefined) => (b === undefined ? "–" : String(Math.round(b / MB)));

type Measure = "total" | "pss" | "anon" | "file";

/** Per group: the idle, peak (under load), and settled readings of RSS, PSS and anonymous memory, and their sums. */
function rssTable(samples: Sample[]): string[] {
  const inPhase = (p: string) => samples.filter((s) => s.phase === p);
  // setPhase takes a reading before it switches: the last of "start" is the one --idle-seconds after start.
  const idle = inPhase("start").at(-1);
  const load = inPhase("load");
  const settled = inPhase("settle").at(-1);
  const peakOf = (g: string, m: Measure) => Math.max(0, ...load.map((s) => s.rss[g]?.[m] ?? 0));
  const sum = (s: Sample | undefined, m: Measure) => GROUPS.reduce((a, g) => a + (s?.rss[g]?.[m] ?? 0), 0);
  const sumOfPeaks = (m: Measure) => GROUPS.reduce((a, g) => a + peakOf(g, m), 0);
  // The sum's peak is the highest sum of simultaneous readings, not the sum of each one's peak.
  const peakTogether = (m: Measure) => Math.max(0, ...load.map((s) => sum(s, m)));
  const three = (g: string, m: Measure) =>
    `${mb(idle?.rss[g]?.[m])} / ${mb(peakOf(g, m))} / ${mb(settled?.rss[g]?.[m])}`;
  const threeSum = (m: Measure) =>
    `**${mb(sum(idle, m))} / ${mb(peakTogether(m))} / ${mb(sum(settled, m))}** (sum of each one's peak: ${mb(sumOfPeaks(m))})`;
  const split = (s: Sample | undefined, g: string) =>
    s?.rss[g] ? `${mb(s.rss[g]!.anon)} + ${mb(s.rss[g]!.file)}` : "–";
  const splitSum = (s: Sample | undefined) => `${mb(sum(s, "anon"))} + ${mb(sum(s, "file"))}`;
  return [
    "| process | RSS idle / peak / settled | PSS idle / peak / settled | anonymous idle / peak / settled | idle RSS: anonymous + file-backed | settled RSS: anonymous + file-backed |",
    "|---|---|---|---|---|---|",
    ...GROUPS.map(
      (g) =>
        `| ${g} | ${three(g, "total")} | ${three(g, "pss")} | ${three(g, "anon")} | ${split(idle, g)} | ${split(settled, g)} |`,
    ),
    `| **sum** | ${threeSum("total")} | ${threeSum("pss")} | ${threeSum("anon")} | ${splitSum(idle)} | ${splitSum(settled)} |`,
  ];
}

const ms = (n: number) => String(Math.round(n));
const loopCell = (d: Dump) => (d.loop ? `${ms(d.loop.maxMs)} (${ms(d.loop.p99Ms)})` : "–");
const gcCell = (d: Dump) => (d.gc ? `${d.gc.count}, ${ms(d.gc.ms)}, ${ms(d.gc.maxMs)}` : "–");

/** V8's share of each process at the end of each phase, and its event loop's delay and collections during it (_memory-dump.mjs). */
function v8Table(dumps: Record<string, Record<string, Dump | undefined>>): string[] {
  const rows: string[] = [];
  for (const [phase, byGroup] of Object.entries(dumps)) {
    for (const g of GROUPS) {
      const d = byGroup[g];
      if (!d) {
        rows.push(`| ${g} | ${phase} | – | – | – | – | – | – | – | – | – |`);
        continue;
      }
      const space = (n: string) => d.spaces[n]?.size;
      const young = (space("new_space") ?? 0) + (space("new_large_object_space") ?? 0);
      const old = (space("old_space") ?? 0) + (space("large_object_space") ?? 0);
      const code = (space("code_space") ?? 0) + (space("code_large_object_space") ?? 0);
      rows.push(
        `| ${g} | ${phase} | ${mb(d.usage.rss)} | ${mb(d.usage.heapTotal)} (${mb(d.usage.heapUsed)} used) | ${mb(young)} | ${mb(old)} | ${mb(code)} | ${mb(d.usage.external)} (${mb(d.usage.arrayBuffers)} buffers) | ${mb(d.heapLimit)} | ${loopCell(d)} | ${gcCell(d)} |`,
      );
    }
  }
  return [
    "| process | at the end of | RSS | V8 heap | young gen. | old gen. + large objects | code | external | heap limit | event loop delay, max (p99) | GC: count, ms in all, longest |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ];
}

/**
 * Each group's pages by where they are mapped (_smaps.ts), at the end of each phase: resident MB as
 * "kept + droppable", kept being anonymous or written pages, droppable the clean pages of files.
 */
function smapsTable(smaps: Record<string, Record<string, Breakdown | undefined>>): string[] {
  const rows: string[] = [];
  const row = (name: string, phase: string, b: Breakdown) => {
    const cell = (p: (typeof PARTS)[number]) =>
      b[p].rss === 0 ? "–" : `${mb(b[p].dirty)} + ${mb(b[p].clean)}`;
    const total = PARTS.reduce((a, p) => a + b[p].rss, 0);
    const pss = PARTS.reduce((a, p) => a + b[p].pss, 0);
    return `| ${name} | ${phase} | ${PARTS.map(cell).join(" | ")} | ${mb(total)} | ${mb(pss)} |`;
  };
  for (const [phase, byGroup] of Object.entries(smaps)) {
    const present = GROUPS.map((g) => byGroup[g]).filter((b): b is Breakdown => b !== undefined);
    for (const g of GROUPS) if (byGroup[g]) rows.push(row(g, phase, byGroup[g]!));
    rows.push(row("**sum**", phase, added(present)));
  }
  return [
    `| process | at the end of | ${PARTS.join(" | ")} | RSS | PSS |`,
    `|---|---|${PARTS.map(() => "---|").join("")}---|---|`,
    ...rows,
  ];
}

/**
 * What the cgroup's limit cost: the memory the kernel charged the stack (each page once, the page cache
 * of its files included), how often it reclaimed to stay under the limit, and what it read again.
 */
function cgroupTable(c: CgroupPhases, server: boolean): string[] {
  const at = (phase: string) => c.byPhase[phase];
  const cell = (r: CgroupReading | undefined) =>
    r
      ? `${mb(r.usage)} (${mb(r.anon)} + ${mb(r.file)}${r.shmem > 0 ? `, tmpfs ${mb(r.shmem)}` : ""}); working set ${mb(r.workingSet)}`
      : "–";
  const end = Object.values(c.byPhase).at(-1)?.last;
  return [
    server
      ? `A server of ${mb(c.limitBytes)} MB (\`--server-mb\`): Kurz's processes, a Postgres of the run's own with its default settings and the stack's Redis in one memory cgroup of that size (_cgroup.ts). Charged MB (anonymous + page cache); the working set leaves out the file pages on the inactive list, which the kernel takes back first (as \`docker stats\` and Kubernetes count a container):`
      : `In a memory cgroup of ${mb(c.limitBytes)} MB (\`--cgroup-mb\`, _cgroup.ts): Kurz's processes together, the stack's Redis moved out. Charged MB (anonymous + page cache); the working set leaves out the file pages on the inactive list, which the kernel takes back first (as \`docker stats\` and Kubernetes count a container):`,
    "",
    "| idle | peak under load | settled |",
    "|---|---|---|",
    `| ${cell(at("start")?.last)} | ${mb(at("load")?.maxUsage)} (the kernel's peak over the run: ${mb(c.peak)}) | ${cell(at("settle")?.last)} |`,
    "",
    end
      ? `Over the run: ${mb(end.refaultBytes)} MB of file pages read again after reclaim took them, ${end.oomKills} processes killed out of memory.`
      : "",
  ];
}

/** The memory settings the run was given. */
function settingsLine(): string {
  const budget = process.env.KURZ_MEMORY_MB || `${MEMORY_DEFAULT_MB} (the default)`;
  const arenas = process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : "";
  return `Settings: KURZ_MEMORY_MB=${budget}${arenas}. Linux ${release()}${readAheadOf(process.cwd())}.`;
}

/**
 * The read-ahead of the disk under `path`, which decides how much a fault in mapped code reads where a
 * service could not limit it (packages/service-kit/src/code-read-advice.ts).
 */
function readAheadOf(path: string): string {
  const dev = statSync(path).dev;
  const id = `${Math.floor(dev / 256) & 0xfff}:${(dev & 0xff) | (Math.floor(dev / 4096) & ~0xff)}`;
  for (const file of [
    `/sys/dev/block/${id}/queue/read_ahead_kb`,
    `/sys/dev/block/${id}/../queue/read_ahead_kb`,
  ])
    if (existsSync(file)) return `, the disk's read-ahead ${readFileSync(file, "utf8").trim()} KB`;
  return "";
}

/** What a run must show: the services alive throughout, every answer right, every click counted. */
function failedChecks(r: Omit<Footprint, "failures">): string[] {
  const { result: x, clicks } = r;
  const failed: string[] = [];
  const oomKills = r.cgroup ? Object.values(r.cgroup.byPhase).at(-1)?.last.oomKills : 0;
  if (oomKills)
    failed.push(
      `the kernel killed ${oomKills} of the stack's processes at its ${mb(r.cgroup!.limitBytes)} MB cgroup limit`,
    );
  if (r.alive.length !== SERVICES.length) failed.push(`services alive at the end: ${r.alive.join(", ")}`);
  if (r.restarts > 0 || r.replaced.length > 0)
    failed.push(`${r.restarts} restarts seen; process replaced: ${r.replaced.join(", ") || "none"}`);
  if (x.wrk.bad > 0 || x.wrk.errors !== "none" || x.wrk.requests === 0)
    failed.push(
      `redirects: ${x.wrk.requests} served, ${x.wrk.bad} not 2xx/3xx, socket errors ${x.wrk.errors}`,
    );
  if (x.api.wrong > 0 || x.api.ok === 0)
    failed.push(`API: ${x.api.wrong} wrong (${x.api.samples.join("; ")})`);
  if (x.analytics.wrong > 0 || x.analytics.ok === 0)
    failed.push(`analytics: ${x.analytics.wrong} wrong (${x.analytics.samples.join("; ")})`);
  if (x.importCounts.created !== r.importRows) failed.push(`import: ${JSON.stringify(x.importCounts)}`);
  if (x.exportResult.status !== 200 || x.exportResult.rows < SEEDED)
    failed.push(`export: ${x.exportResult.status}, ${x.exportResult.rows} rows`);
  // wrk counts the answers it read; the requests in flight when it stopped were served too.
  if (clicks.dropped > 0 || clicks.waiting > 0 || clicks.published < x.wrk.requests - x.wrk.bad)
    failed.push(`clicks: ${JSON.stringify(clicks)} for ${x.wrk.requests} redirects`);
  if (clicks.counted !== clicks.published)
    failed.push(
      `analytics counted ${clicks.counted} clicks of ${clicks.published} published${clicks.answer ? ` (its summary answered ${clicks.answer})` : ""}`,
    );
  return failed;
}

function report(r: Footprint): string {
  const { result: x } = r;
  return [
    "## footprint (memory of the whole stack)",
    "",
    `\`./kurz bench footprint --idle-seconds ${r.idleSeconds} --load-seconds ${r.loadSeconds} --settle-seconds ${r.settleSeconds}\` — the stack as \`./kurz up\` starts it`,
    "(infra/local/up.ts; each service from its bundle, NODE_ENV=production); RSS, PSS (/proc/<pid>/smaps_rollup: a page",
    "shared by several processes divided among them, so the PSS sum is what the stack takes from the machine) and",
    `anonymous (kept) memory of each process and its children every 250 ms, in MB (Postgres and Redis apart). Idle: ${r.idleSeconds} s after start, before any request; peak: the`,
    `highest reading during the ${Math.round(r.loadMs / 1000)} s of load (the sum's peak is the highest sum of simultaneous readings); settled: ${r.settleSeconds} s after it.`,
    "",
    ...rssTable(r.samples),
    "",
    ...(r.cgroup ? [...cgroupTable(r.cgroup, r.serverMb !== undefined), ""] : []),
    ...(r.reclaim
      ? [
          "With --reclaim: after the idle reading the kernel was asked to reclaim every process's clean file pages that no other",
          "process maps (_pageout.py, what memory pressure would take), so the peak under load is of the pages the load touched",
          "again; the page table below has the readings 5 s after that and after the same at the end.",
          "",
        ]
      : []),
    `The load: wrk with ${WRK_CONNECTIONS} connections over ${SEEDED.toLocaleString("en")} links (browser User-Agent, so every click is counted): ${x.wrk.requests.toLocaleString("en")} redirects, ${Math.round(x.wrk.rps)}/s, ${x.wrk.bad} not 2xx/3xx, socket errors: ${x.wrk.errors};`,
    `${API_CLIENTS} API clients (get, list, create in turn): ${x.api.ok} answers right, ${x.api.wrong} wrong${x.api.samples.length ? ` (${x.api.samples.join("; ")})` : ""};`,
    `analytics over 30 days (summary, a link's series in turn): ${x.analytics.ok} right, ${x.analytics.wrong} wrong, ${x.analytics.retried} sent again after a 429 or 503${x.analytics.samples.length ? ` (${x.analytics.samples.join("; ")})` : ""};`,
    `a ${r.importRows.toLocaleString("en")}-row CSV import: ${JSON.stringify(x.importCounts)}; a links export: ${x.exportResult.status}, ${x.exportResult.rows.toLocaleString("en")} rows, ${x.exportResult.mb.toFixed(1)} MB.`,
    `${settingsLine()}${r.cold ? " The page cache was dropped just before the stack started (--cold)." : ""}`,
    `Clicks: ${r.clicks.published.toLocaleString("en")} published by the redirect, ${r.clicks.dropped} dropped, ${r.clicks.counted.toLocaleString("en")} counted by analytics (the last ${r.clicks.seconds.toFixed(1)} s after the load).`,
    `Services alive at the end: ${r.alive.join(", ")}; restarts seen: ${r.restarts}. Load average (1 min) at the end of the load: ${x.load1.toFixed(1)}.`,
    r.failures.length > 0 ? `**Checks failed:** ${r.failures.join("; ")}.` : "Every check held.",
    "",
    "V8's part of each Node process (process.memoryUsage() and heap spaces, MB; the young generation is both semi-spaces), and during the phase its event loop's delay and garbage collections (ms):",
    "",
    ...v8Table(r.dumps),
    "",
    "Where each process's pages are (/proc/<pid>/smaps, MB, kept + droppable: kept are anonymous or written pages,",
    "droppable the clean pages of a file, which the system can drop and read again; node is the binary, chdb",
    "chDB's library, each with its .bss; heap is malloc's main heap; anonymous is the rest: V8's heap, malloc's other",
    "arenas, chDB's allocations, stacks). PSS divides each shared page among the processes that map it.",
    "",
    ...smapsTable(r.smaps),
    "",
  ].join("\n");
}
