// `./kurz bench health`: scheduled link-health checks at scale (docs/health.md). Seeds --links links
// (default 1,000,000) over --hosts host names (default 50,000, each its own site, e.g. s123.test) in a
// database of its own, due at random times of the past day (the steady state of a daily schedule, and
// a backlog that keeps the scheduler busy). Destinations are one HTTP server on loopback in a child
// process (_health-servers.ts) that answers every name and counts per host; the checker's resolver maps
// every name to 127.0.0.1 (the allow-list names them, as TITLE_FETCH_ALLOW_HOSTS would). Management's
// scheduler (HealthScheduler, its site slots and budget in Redis) then runs for --duration seconds at
// --budget checks a second (HEALTH_CHECKS_PER_SECOND, default the service's 20) and --concurrency.
// Prints checks/s, the projection for the links seeded (target <= 24 h), this process's CPU seconds and
// peak RSS, and the hosts' maxima (target: <= 1 request a second, <= 1 in flight). Run it under
// `flock /tmp/bench.lock` on a shared machine.
import { fork } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createPrisma, poolOf } from "@kurz/db";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { DestinationChecker } from "../../services/management/src/health/check-destination.ts";
import { HealthScheduler } from "../../services/management/src/health/schedule-runner.ts";
import { SiteSlots } from "../../services/management/src/health/site-slots.ts";
import { RedirectRecords } from "../../services/management/src/projections/link-records.ts";
import { rssOf } from "./_rss.ts";

export const description =
  "scheduled health checks: 1M links over 50k hosts against loopback servers; checks/s and the 24 h projection, CPU, RSS, per-host maxima";

interface ServerStats {
  requests: number;
  hosts: number;
  maxPerSecond: number;
  maxInFlight: number;
  minGapMs: number | null;
  gapsUnderASecond: number;
}

const int = (n: number) => Math.round(n).toLocaleString("en-US");
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

function startServers() {
  const child = fork(new URL("./_health-servers.ts", import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = <T>(key: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (msg: Record<string, unknown>) => {
        if (!(key in msg)) return;
        child.off("message", onMessage);
        resolve(msg[key] as T);
      };
      child.on("message", onMessage);
      child.once("exit", (code) => reject(new Error(`the servers exited (${code})`)));
    });
  return {
    child,
    port: next<number>("port"),
    stats: () => {
      const answer = next<ServerStats>("stats");
      child.send({ cmd: "stats" });
      return answer;
    },
    stop: () => {
      child.send({ cmd: "exit" });
    },
  };
}

/** The links, their schedule and one workspace per 100,000 links, by bulk SQL. */
async function seed(pool: ReturnType<typeof poolOf>, links: number, hosts: number, port: number) {
  // A throwaway database: the links' indexes other than their keys (lists, search) serve no query the
  // scheduler makes and would only slow the seeding; so would the trigger, whose schedule rows are
  // written here instead, due over the past day.
  await pool.query(`DO $$ DECLARE r record; BEGIN
    FOR r IN SELECT i.indexrelid::regclass AS name FROM pg_index i
             WHERE i.indrelid = 'links'::regclass AND NOT i.indisprimary AND NOT i.indisunique LOOP
      EXECUTE 'DROP INDEX ' || r.name;
    END LOOP; END $$`);
  await pool.query("ALTER TABLE links DISABLE TRIGGER links_health_schedule");
  const accounts = Math.max(1, Math.ceil(links / 100_000));
  await pool.query(
    `INSERT INTO accounts (id, email, name, updated_at)
     SELECT gen_random_uuid(), 'bench-health-' || g || '@example.com', 'bench ' || g, now()
     FROM generate_series(1, $1) g`,
    [accounts],
  );
  await pool.query(
    `INSERT INTO links (id, account_id, short_code, original_url, title, updated_at)
     SELECT gen_random_uuid(), a.ids[1 + g % $4], 'hb' || g,
            'http://s' || (g % $2) || '.test:' || $3 || '/l/' || g, 'bench', now()
     FROM generate_series(0, $1 - 1) g,
          (SELECT array_agg(id) AS ids FROM accounts) a`,
    [links, hosts, port, accounts],
  );
  await pool.query(
    `INSERT INTO link_health_schedule (link_id, next_check_at)
     SELECT id, now() - random() * interval '1 day' FROM links`,
  );
  await pool.query("ALTER TABLE links ENABLE TRIGGER links_health_schedule");
  await pool.query("ANALYZE links; ANALYZE link_health_schedule; ANALYZE accounts");
}

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      links: { type: "string", default: "1000000" },
      hosts: { type: "string", default: "50000" },
      duration: { type: "string", default: "60" },
      budget: { type: "string", default: "20" },
      concurrency: { type: "string", default: "20" },
    },
    strict: true,
  });
  const links = Number(values.links);
  const hosts = Number(values.hosts);
  const duration = Number(values.duration);
  const budget = Number(values.budget);
  const concurrency = Number(values.concurrency);
  const out = [
    `### health (${new Date().toISOString().slice(0, 16)} UTC)`,
    "",
    `Command: \`flock /tmp/bench.lock ./kurz bench health --links ${links} --hosts ${hosts} --duration ${duration} --budget ${budget} --concurrency ${concurrency}\``,
    `(${cpus().length} cores, load before ${load()})`,
    "",
  ];

  const servers = startServers();
  const database = await createMigratedDatabase("bench_health");
  const prisma = createPrisma(database.url);
  const prefix = uniquePrefix("bench-health");
  const redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  const checker = new DestinationChecker({
    allowHosts: Array.from({ length: hosts }, (_, i) => `s${i}.test`),
    resolve: async () => [{ address: "127.0.0.1", family: 4 }],
  });
  try {
    const port = await servers.port;
    const seedStart = performance.now();
    await seed(poolOf(prisma), links, hosts, port);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    console.error(`seeded ${int(links)} links over ${int(hosts)} hosts in ${seedSeconds.toFixed(0)} s`);

    const scheduler = new HealthScheduler({
      prisma,
      // The redirect's records of links that break or recover go to the bench's own Redis prefix.
      records: new RedirectRecords(redis, { warn: () => {} }),
      onEventsWritten: () => {},
      slots: new SiteSlots(redis, { checksPerSecond: budget }),
      checker,
      concurrency,
      logger: { warn: (o, m) => console.error(m, o) },
      pollMs: 1_000,
    });
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = rssOf(process.pid) ?? 0;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssOf(process.pid) ?? 0);
    }, 250);
    const cpuBefore = process.cpuUsage();
    const loadBefore = load();
    const started = performance.now();
    scheduler.start();
    await new Promise((r) => setTimeout(r, duration * 1000));
    await scheduler.stop();
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, rssOf(process.pid) ?? 0);
    global.gc?.();
    const heapAfter = process.memoryUsage().heapUsed;
    const stats = await servers.stats();
    const totals = scheduler.totals;
    const rate = totals.checked / seconds;
    const hoursFor = (n: number) => n / rate / 3600;
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const recorded = Number(
      (await poolOf(prisma).query<{ n: string }>("SELECT count(*) AS n FROM link_health")).rows[0]?.n,
    );
    console.error("scheduler", totals, "servers", stats);

    out.push(
      `${int(links)} links over ${int(hosts)} host names (each its own site), seeded in ${seedSeconds.toFixed(0)} s by bulk SQL, all due (a backlog);`,
      `the scheduler ran ${seconds.toFixed(0)} s at a budget of ${budget} checks/s and ${concurrency} at once, against one HTTP server on loopback (20 ms per answer) in another process.`,
      "",
      "| checked | recorded | checks/s | hours for the links seeded (target ≤ 24) | CPU s (per 1,000 checks) | RSS before / peak (MB) | load before → after |",
      "|---|---|---|---|---|---|---|",
      `| ${int(totals.checked)} | ${int(recorded)} | **${rate.toFixed(1)}** | **${hoursFor(links).toFixed(1)}** | ${cpuSeconds.toFixed(1)} (${((cpuSeconds * 1000) / Math.max(1, totals.checked)).toFixed(2)}) | ${Math.round(rssBefore / 2 ** 20)} / ${Math.round(rssPeak / 2 ** 20)} | ${loadBefore} → ${load()} |`,
      "",
      "| requests at the servers | hosts reached | most requests to one host in any second (target ≤ 1) | most in flight at one host (target ≤ 1) | least gap between two requests to one host | put back for a busy site | failed |",
      "|---|---|---|---|---|---|---|",
      `| ${int(stats.requests)} | ${int(stats.hosts)} | **${stats.maxPerSecond}** | **${stats.maxInFlight}** | ${stats.minGapMs === null ? "– (no host twice)" : `${int(stats.minGapMs)} ms`} | ${int(totals.deferred)} | ${int(totals.failed)} |`,
      "",
      global.gc
        ? `Live heap after a forced GC: ${Math.round(heapBefore / 2 ** 20)} MB before the run, ${Math.round(heapAfter / 2 ** 20)} MB after it.`
        : "(Run node with --expose-gc for the live heap before and after.)",
      "",
      `At ${rate.toFixed(1)} checks/s a day holds ${int(rate * 86_400)} checks: 1,000,000 links take ${hoursFor(1_000_000).toFixed(1)} h.`,
    );
    return out.join("\n");
  } finally {
    await checker.close();
    redis.disconnect();
    await cleanupRedisPrefix(testRedisUrl(), prefix).catch(() => 0);
    await prisma.$disconnect();
    await database.drop();
    servers.stop();
  }
}
