// Analytics draining a click backlog under a memory budget: `node --import tsx
// infra/bench/_analytics-backlog.ts [ROOT] [clicks] [KURZ_MEMORY_MB]` publishes `clicks` (default
// 300,000) of the synthetic traffic to a Redis bus of its own (messages of 200 clicks, as the redirect
// publishes under load) while no consumer runs, then starts analytics' bundle from the checkout at ROOT
// (default this one; build it first) with the budget's bounds (default the minimum, 1024) as `./kurz up`
// does, and waits until its group has acknowledged every message. Every 250 ms it reads the process's
// RSS and V8 heap (infra/bench/_memory-dump.mjs); at the end it counts the clicks in chDB. Prints one
// JSON line: whether the process lived, how long the drain took, the peaks, and the counts.
// EXTRA_NODE_FLAGS adds flags (`--heapsnapshot-near-heap-limit=1`, `--trace-gc`); OLD_SPACE_MB
// overrides the old generation alone. Run under `flock /tmp/bench.lock`, alternating checkouts.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createBus, topicName } from "@kurz/bus";
import { redisGroupDone } from "@kurz/bus/testing";
import { createClickHouse } from "@kurz/clickhouse";
import { clickPartitionKey, encodeClickBatch, TOPICS } from "@kurz/contracts";
import { cleanupRedisPrefix, getFreePort, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { memoryBoundsFor, memoryPlan } from "../build/memory.ts";
import { nodeFlagsFor } from "../build/node-flags.ts";
import { syntheticClick, syntheticLinks } from "./_synthetic-clicks.ts";

const root = resolve(process.argv[2] ?? join(import.meta.dirname, "../.."));
const total = Number(process.argv[3] ?? 300_000);
const budget = Number(process.argv[4] ?? 1024);
const bundle = join(root, "services/analytics/dist/main.mjs");
if (!existsSync(bundle)) throw new Error(`${bundle} is missing: build it first (./kurz build or a test run)`);

const prefix = uniquePrefix("backlog");
const redisUrl = testRedisUrl();
const bus = createBus({ kind: "redis", clientId: "backlog-bench", prefix, redisUrl });
const links = syntheticLinks().slice(0, 300);
for (let i = 0; i < total; ) {
  const messages = [];
  for (let m = 0; m < 100 && i < total; m++) {
    const clicks = [];
    for (let j = 0; j < 200 && i < total; j++, i++) clicks.push(syntheticClick(links, i));
    messages.push({ key: clickPartitionKey(clicks[0]!.link_id), value: encodeClickBatch(clicks) });
  }
  await bus.publish(TOPICS.clicks, messages);
}
await bus.close();

const plan = memoryPlan(budget);
const bounds = memoryBoundsFor("analytics", plan);
const oldSpace = process.env.OLD_SPACE_MB ? [`--max-old-space-size=${process.env.OLD_SPACE_MB}`] : [];
const data = mkdtempSync(join(tmpdir(), "kurz-backlog-ch-"));
const dumps = mkdtempSync(join(tmpdir(), "kurz-backlog-dump-"));
const flags = [
  ...nodeFlagsFor("analytics"),
  ...bounds.nodeFlags,
  ...oldSpace,
  ...(process.env.EXTRA_NODE_FLAGS ?? "").split(" ").filter(Boolean),
];
const opsPort = await getFreePort();
const child = spawn(process.execPath, [...flags, bundle], {
  cwd: root,
  env: {
    ...process.env,
    ...bounds.env,
    NODE_OPTIONS: `--import ${join(import.meta.dirname, "_memory-dump.mjs")}`,
    KURZ_MEMORY_DUMP_DIR: dumps,
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    ANALYTICS_SALT_SECRET: randomBytes(16).toString("hex"),
    INTERNAL_TOKEN: randomBytes(16).toString("hex"),
    REDIS_URL: redisUrl,
    BUS_PREFIX: prefix,
    CLICKHOUSE_PATH: data,
    CLICKHOUSE_DATABASE: "backlog",
    PORT: String(await getFreePort()),
    OPS_PORT: String(opsPort),
    // Nothing answers here: the drain never asks management, only the API does.
    MANAGEMENT_URL: "http://127.0.0.1:9",
  },
  stdio: ["ignore", "pipe", "pipe"],
});
let output = "";
child.stdout.on("data", (b) => (output += b));
child.stderr.on("data", (b) => (output += b));
let exit: { code: number | null; signal: string | null } | undefined;
const exited = new Promise<void>((done) =>
  child.on("exit", (code, signal) => {
    exit = { code, signal };
    done();
  }),
);

// Signals only once the service is up: before that, SIGUSR2 has no handler and would end it.
while (exit === undefined) {
  const up = await fetch(`http://127.0.0.1:${opsPort}/health`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) break;
  await sleep(100);
}
const peak = { rssMb: 0, heapUsedMb: 0, heapTotalMb: 0, oldUsedMb: 0, externalMb: 0 };
let gc = { count: 0, ms: 0, maxMs: 0 };
let heapLimitMb = 0;
const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
/** From the service being up, not from its start: the drain alone. */
const started = performance.now();
let drainedAt: number | undefined;
while (exit === undefined) {
  const status = existsSync(`/proc/${child.pid}/status`)
    ? readFileSync(`/proc/${child.pid}/status`, "utf8")
    : "";
  const rss = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  peak.rssMb = Math.max(peak.rssMb, Math.round(Number(rss ?? 0) / 1024));
  child.kill("SIGUSR2");
  await sleep(250);
  const file = join(dumps, `${child.pid}.json`);
  if (existsSync(file)) {
    const dump = JSON.parse(readFileSync(file, "utf8"));
    peak.heapUsedMb = Math.max(peak.heapUsedMb, mb(dump.usage.heapUsed));
    peak.heapTotalMb = Math.max(peak.heapTotalMb, mb(dump.usage.heapTotal));
    peak.externalMb = Math.max(peak.externalMb, mb(dump.usage.external));
    peak.oldUsedMb = Math.max(peak.oldUsedMb, mb(dump.spaces.old_space?.used ?? 0));
    heapLimitMb = mb(dump.heapLimit);
    gc = {
      count: gc.count + dump.gc.count,
      ms: gc.ms + dump.gc.ms,
      maxMs: Math.max(gc.maxMs, dump.gc.maxMs),
    };
  }
  if (
    await redisGroupDone(redisUrl, topicName(prefix, TOPICS.clicks), "analytics-clicks").catch(() => false)
  ) {
    drainedAt = performance.now();
    break;
  }
  if (performance.now() - started > 600_000) break;
}
if (exit === undefined) {
  child.kill("SIGTERM");
  await exited;
}
if (drainedAt === undefined || process.env.BACKLOG_OUTPUT) console.error(output.slice(-4000));
const ch = await createClickHouse({ path: data, database: "backlog" });
const one = async (sql: string) =>
  Number(Object.values((await ch.query(sql).catch(() => []))[0] ?? { n: -1 })[0]);
const counts = {
  rows: await one("SELECT count() FROM clicks"),
  distinct: await one("SELECT uniqExact(click_id) FROM clicks"),
  daily: await one("SELECT sum(clicks) FROM link_daily"),
  dimTotal: await one("SELECT sum(clicks) FROM link_dim_total WHERE dim = 'country'"),
};
await ch.close();
await cleanupRedisPrefix(redisUrl, prefix);
rmSync(data, { recursive: true, force: true });
rmSync(dumps, { recursive: true, force: true });
const died = exit !== undefined && (exit.code !== 0 || exit.signal !== null) && drainedAt === undefined;
console.log(
  JSON.stringify({
    root: root.split("/").pop(),
    clicks: total,
    budget,
    flags: flags.join(" "),
    drained: drainedAt !== undefined,
    died,
    exit,
    drainSeconds: drainedAt === undefined ? null : Math.round((drainedAt - started) / 100) / 10,
    clicksPerSecond: drainedAt === undefined ? null : Math.round(total / ((drainedAt - started) / 1000)),
    heapLimitMb,
    peak,
    gc: { count: gc.count, seconds: Math.round(gc.ms / 100) / 10, maxMs: Math.round(gc.maxMs) },
    counts,
  }),
);
process.exit(0);
