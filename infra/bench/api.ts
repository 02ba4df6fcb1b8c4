// `./kurz bench api`: the v1 API through the gateway (auth, rate limit, proxy, management, Postgres) on
// a full local stack, with two accounts: one that starts empty and one with 100k links seeded directly
// in Postgres (its stored link count set to match, decision 0037).
//   - create-link: POST /api/v1/links with a title (no title fetch), each request a new link, on the
//     empty account and on the full one in the same run (ABBA order, so drift during the run cancels);
//     the ratio full/empty shows whether a create's cost grows with the account (target ≥ 90%);
//   - GET /api/v1/links/:id on the full account: one account's create throughput against it (≥ 50%);
//   - creates spread over 16 empty accounts, in turn with the others: one account's creates against
//     them show whether that account's creates wait on each other (a lock) or only on the CPU;
//   - list: GET /api/v1/links?per_page=100, first page, a deep page, is_active and search filters;
//   - EXPLAIN ANALYZE of the list queries at that size, to show which indexes serve them;
//   - the reference (_api-reference.ts): the same work as GET /links/:id in one bare node:http process
//     (Redis key lookup, rate-limit script, one `pg` query), measured in turns with GET (A B B A); the
//     ratio GET/reference is the per-request overhead of the real path (target ≥ 40%, p99 < 20 ms).
// The services run in production mode (NODE_ENV=production: no response validation, as deployed).
// The keys' rate limits are raised in the database (they are per key). Options: --duration <s>
// (default 10), --connections <n> (default 16), --only core (reference, get and creates; no list rows).
// Run under `flock /tmp/bench.lock` on a shared machine.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { apiKeyCacheKey } from "@kurz/contracts";
import { createPrisma } from "@kurz/db";
import { startStack } from "@kurz/testing/stack";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { LINK_COUNTS_SQL } from "../../services/management/src/links/link-count.ts";
import { cpuMeter, pidsNamed } from "./_cpu.ts";
import { sampleRss } from "./_rss.ts";
import { productionEnv } from "./_stack-services.ts";

export const description =
  "v1 API through the gateway: create-link on an empty account and on one with 100k links, get, list (per_page 100)";

const LINKS = 100_000;
/** Accounts the spread creates go to, in turn. */
const SPREAD_ACCOUNTS = 16;

interface Figures {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function load(
  name: string,
  opts: {
    url: string;
    method?: "GET" | "POST";
    body?: string;
    headers: Record<string, string>;
    /** API keys to send in turn, one per request, instead of the authorization header's. */
    keys?: readonly string[];
  },
  duration: number,
  connections: number,
): Promise<Figures> {
  const keys = opts.keys;
  let turn = 0;
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? "GET",
    headers: opts.headers,
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(keys
      ? {
          requests: [
            {
              setupRequest: (request) => {
                request.headers = {
                  ...request.headers,
                  authorization: `Bearer ${keys[turn++ % keys.length]}`,
                };
                return request;
              },
            },
          ],
        }
      : {}),
    connections,
    duration,
  });
  return {
    name,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

type Stack = Awaited<ReturnType<typeof startStack>>;
type Prisma = ReturnType<typeof createPrisma>;
type CpuPerRequest = Record<string, number | undefined>;

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string", default: "10" },
      connections: { type: "string", default: "16" },
      only: { type: "string" },
    },
    strict: false,
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  const coreOnly = values.only === "core";
  const env = productionEnv("api");
  const stack = await startStack({ extraEnv: env });
  // Idle RSS of each service right after start, then its peak over the whole run (_rss.ts).
  const rss = sampleRss(stack.pids);
  const prisma = createPrisma(stack.databaseUrl);
  const reference = await startReference(stack);
  try {
    const seeded = await seedAndWarm(stack, prisma);
    const { account, headers, base } = seeded;
    const gets = await measureGets(stack, reference, seeded, duration, connections);
    const creates = await measureCreates(stack, seeded, duration, connections);
    const figures: Figures[] = [
      gets.ref,
      gets.getOne,
      gets.getGateway,
      creates.createEmpty,
      creates.createFull,
      creates.createSpread,
    ];
    if (!coreOnly)
      for (const [name, query] of [
        ["GET /links?per_page=100 (page 1)", "per_page=100"],
        ["GET /links?per_page=100&page=500 (deep page)", "per_page=100&page=500"],
        ["GET /links?per_page=100&is_active=false", "per_page=100&is_active=false"],
        ["GET /links?per_page=100&search=site42.example (rare)", "per_page=100&search=site42.example"],
        ["GET /links?per_page=100&search=cats (common)", "per_page=100&search=cats"],
      ] as const) {
        figures.push(await load(name, { url: `${base}?${query}`, headers }, duration, connections));
      }
    const { plans, activeCounts } = coreOnly
      ? { plans: [], activeCounts: [] }
      : await queryPlans(prisma, account.account_id);
    const load1 = loadavg()[0]!.toFixed(1);
    rss.stop();
    return report({
      duration,
      connections,
      seedMs: seeded.seedMs,
      load1,
      gets,
      creates,
      figures,
      plans,
      activeCounts,
      rssLines: rss.markdown(),
    });
  } finally {
    rss.stop();
    await reference.stop();
    await prisma.$disconnect();
    await stack.stop();
    rmSync(env.SPOOL_DIR!, { recursive: true, force: true });
  }
}

/**
 * Makes the accounts (one to fill, one empty, SPREAD_ACCOUNTS to spread creates over), seeds the full
 * one with LINKS links behind the API's back, and warms every kind of request up; the warm-up's links
 * are deleted again, so the empty accounts start empty.
 */
async function seedAndWarm(stack: Stack, prisma: Prisma) {
  const [account, empty, ...spread] = await Promise.all([
    stack.createAccount(`bench-${Date.now()}@example.com`, 10_000_000),
    stack.createAccount(`bench-empty-${Date.now()}@example.com`, 10_000_000),
    ...Array.from({ length: SPREAD_ACCOUNTS }, (_, i) =>
      stack.createAccount(`bench-spread-${i}-${Date.now()}@example.com`, 10_000_000),
    ),
  ]);
  const spreadKeys = spread.map((a) => a!.api_key);
  // Per-key limits live on the key; raise them before its first use so the gateway caches these.
  await prisma.apiKey.updateMany({
    where: { accountId: { in: [account, empty, ...spread].map((a) => a!.account_id) } },
    data: { rateLimitPerMinute: 1_000_000_000, rateLimitPerHour: 1_000_000_000 },
  });
  const seedStarted = Date.now();
  await prisma.$executeRawUnsafe(
    `INSERT INTO links (id, account_id, short_code, original_url, title, is_active, expires_at, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'seed' || i,
              'https://site' || (i % 5000) || '.example.com/path/' || md5(i::text),
              'Seeded page ' || i || ' about ' || (ARRAY['cats','dogs','news','shop','blog'])[1 + i % 5],
              i % 3 <> 0,
              -- One link in ten expires, half of those already: what the summary's active count skips.
              CASE WHEN i % 10 = 1 THEN now() + make_interval(secs => i - ${LINKS / 2}) END,
              now() - make_interval(secs => i), now()
       FROM generate_series(1, ${LINKS}) AS i`,
    account.account_id,
  );
  // Rows seeded behind the API's back are counted once here (decision 0037's kurz_recount_links).
  await prisma.$queryRaw`SELECT kurz_recount_links(${account.account_id}::uuid)`;
  await prisma.$executeRawUnsafe("VACUUM ANALYZE links");
  const seedMs = Date.now() - seedStarted;

  const headers = { authorization: `Bearer ${account.api_key}`, "content-type": "application/json" };
  const emptyHeaders = { ...headers, authorization: `Bearer ${empty.api_key}` };
  const base = `${stack.origin}/api/v1/links`;
  const [seeded] = await prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM links WHERE account_id = ${account.account_id}::uuid LIMIT 1`;
  // Warm-up: key caches, connection pools, JIT, for both keys and each kind of request.
  const createBody = JSON.stringify({ url: "https://example.com/x", title: "Bench" });
  await load("warm-up", { url: `${base}?per_page=100`, headers }, 2, 4);
  await load("warm-up", { url: base, method: "POST", headers: emptyHeaders, body: createBody }, 1, 4);
  await load("warm-up", { url: base, method: "POST", headers, body: createBody }, 1, 4);
  await load("warm-up", { url: base, method: "POST", headers, body: createBody, keys: spreadKeys }, 1, 4);
  for (const a of [empty, ...spread]) {
    await prisma.$executeRaw`DELETE FROM links WHERE account_id = ${a!.account_id}::uuid`;
    await prisma.$queryRaw`SELECT kurz_recount_links(${a!.account_id}::uuid)`;
  }

  return {
    account,
    empty,
    spreadKeys,
    seedMs,
    seededId: seeded!.id,
    headers,
    emptyHeaders,
    base,
    createBody,
  };
}

type Seeded = Awaited<ReturnType<typeof seedAndWarm>>;

/** The mean of two runs of one row. */
const mean = (name: string, [a, b]: Figures[]): Figures => ({
  name,
  rps: Math.round((a!.rps + b!.rps) / 2),
  p50: (a!.p50 + b!.p50) / 2,
  p99: (a!.p99 + b!.p99) / 2,
  requests: a!.requests + b!.requests,
  non2xx: a!.non2xx + b!.non2xx,
  errors: a!.errors + b!.errors,
});

/**
 * GET /links/:id through the public origin, at the gateway's own port, and the reference, alternating
 * A B C C B A so drift during the run cancels, with each process's CPU per request.
 */
async function measureGets(
  stack: Stack,
  reference: { url: string; pid: number },
  { account, headers, seededId }: Seeded,
  duration: number,
  connections: number,
) {
  // GET and the reference alternate A B B A, so drift during the run cancels. They run before the
  // creates: after them, the outbox relay and autovacuum work off thousands of new rows, and that
  // background work would be counted in the GET's CPU per request.
  const getUrl = `/api/v1/links/${seededId}`;
  await sleep(2_000); // the warm-up creates' outbox events are relayed meanwhile
  await load("warm-up", { url: `${reference.url}${getUrl}`, headers }, 2, 4);
  const gets: Record<"ref" | "get" | "gw", Figures[]> = { ref: [], get: [], gw: [] };
  // CPU per request of each process, over the GET runs and over the reference runs.
  const cpu: Record<"ref" | "get" | "gw", Record<string, number | undefined>[]> = {
    ref: [],
    get: [],
    gw: [],
  };
  // "gw" is the same GET sent to the gateway's own port: what the public origin's hop (the
  // redirect's forwarder, decision 0038) costs, measured in the same run.
  // The reference reads the gateway's cache entry for the key, which expires KEY_CACHE_TTL_SECONDS (60)
  // after the gateway wrote it; a run that outlives it answers 401s at the reference's speed (most of
  // its responses non-2xx). Before each reference row the entry is dropped and the gateway writes it
  // afresh, so it outlives the row.
  const redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX ?? "" });
  const keyCacheKey = apiKeyCacheKey(createHash("sha256").update(account.api_key).digest("hex"));
  const freshKeyCache = async () => {
    await redis.del(keyCacheKey);
    const res = await fetch(`${stack.origin}${getUrl}`, { headers });
    await res.arrayBuffer();
    if (!res.ok || !(await redis.exists(keyCacheKey)))
      throw new Error("the key's cache entry was not written");
  };
  for (const which of ["ref", "get", "gw", "gw", "get", "ref"] as const) {
    if (which === "ref") await freshKeyCache();
    const url =
      which === "ref"
        ? `${reference.url}${getUrl}`
        : `${which === "gw" ? stack.urls.gatewayInternal : stack.origin}${getUrl}`;
    const shared = { postgres: pidsNamed("postgres"), redis: pidsNamed("redis-server") };
    const meter = cpuMeter(
      which === "ref" ? { reference: reference.pid, ...shared } : { ...stack.pids, ...shared },
    );
    const figures = await load(which, { url, headers }, duration, connections);
    gets[which].push(figures);
    cpu[which].push(meter.perRequest(figures.requests));
  }
  redis.disconnect();
  const getOne = mean("GET /links/:id", gets.get);
  const getGateway = mean("GET /links/:id at the gateway's own port (no public-origin hop)", gets.gw);
  const ref = mean("reference: bare node:http, Redis GET + rate-limit script + pg by id", gets.ref);
  return { getOne, getGateway, ref, cpu };
}

/** Creates on the empty account, on the full one and spread over many, alternating A B C C B A. */
async function measureCreates(
  stack: Stack,
  { headers, emptyHeaders, base, createBody, spreadKeys }: Seeded,
  duration: number,
  connections: number,
) {
  // Creates on the empty and the full account and spread over many alternate A B C C B A; each
  // figure is the mean of its two.
  const creates: Record<"empty" | "full" | "spread", Figures[]> = { empty: [], full: [], spread: [] };
  // CPU per create, as for the GET: whether one account's creates are held back by CPU or by a wait.
  const createCpu: Record<"one" | "spread", Record<string, number | undefined>[]> = { one: [], spread: [] };
  for (const which of ["empty", "full", "spread", "spread", "full", "empty"] as const) {
    const h = which === "empty" ? emptyHeaders : headers;
    const meter = cpuMeter({
      ...stack.pids,
      postgres: pidsNamed("postgres"),
      redis: pidsNamed("redis-server"),
    });
    const figures = await load(
      `POST /links (create, ${which})`,
      {
        url: base,
        method: "POST",
        headers: h,
        body: createBody,
        ...(which === "spread" ? { keys: spreadKeys } : {}),
      },
      duration,
      connections,
    );
    creates[which].push(figures);
    createCpu[which === "spread" ? "spread" : "one"].push(meter.perRequest(figures.requests));
  }
  const createEmpty = mean("POST /links (create) on an account that starts empty", creates.empty);
  const createFull = mean(
    `POST /links (create) on an account with ${LINKS.toLocaleString("en")} links`,
    creates.full,
  );
  const createSpread = mean(
    `POST /links (create) spread over ${SPREAD_ACCOUNTS} accounts that start empty, in turn`,
    creates.spread,
  );
  return { createEmpty, createFull, createSpread, createCpu };
}

/** EXPLAIN ANALYZE of the list queries and of the summary's active-link count at LINKS links. */
async function queryPlans(prisma: Prisma, accountId: string) {
  const plan = async (sql: string, ...more: unknown[]) => {
    const [row] = await prisma.$queryRawUnsafe<{ "QUERY PLAN": unknown }[]>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      accountId,
      ...more,
    );
    const [top] = row!["QUERY PLAN"] as { "Execution Time": number; Plan: unknown }[];
    const indexes = [...JSON.stringify(top!.Plan).matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]);
    return `${top!["Execution Time"].toFixed(2)} ms (${[...new Set(indexes)].join(", ") || "no index"})`;
  };
  const explain = async (label: string, where: string) => {
    const page = await plan(
      `SELECT * FROM links WHERE account_id = $1::uuid ${where} ORDER BY created_at DESC, id DESC LIMIT 100`,
    );
    // The unfiltered total is the stored count (management's links/list-links.ts): the sum of the account's 16 shards.
    const count =
      where === ""
        ? `stored count: ${await plan("SELECT COALESCE(sum(used), 0) FROM link_quota WHERE account_id = $1::uuid")}`
        : await plan(`SELECT count(*) FROM links WHERE account_id = $1::uuid ${where}`);
    return `| ${label} | ${page} | ${count} |`;
  };
  const search = (term: string) =>
    `AND (original_url ILIKE '%${term}%' OR short_code ILIKE '%${term}%' OR title ILIKE '%${term}%')`;
  const plans = [
    await explain("no filter", ""),
    await explain("is_active = false", "AND is_active = false"),
    await explain("search 'site42.example' (rare)", search("site42.example")),
    await explain("search 'cats' (common)", search("cats")),
  ];
  // The analytics summary's active_links (link-count.ts's linkCounts), against counting the active
  // links themselves (what links_account_id_expires_at_active_idx spares).
  const activeCounts = [
    `- active links, counted directly (before): ${await plan(
      "SELECT count(*) FROM links WHERE account_id = $1::uuid AND is_active AND (expires_at IS NULL OR expires_at > now())",
    )}`,
    `- active links as the stored count less those off or expired (linkCounts): ${await plan(
      LINK_COUNTS_SQL,
      new Date(),
    )}`,
  ];
  return { plans, activeCounts };
}

/** Each process's CPU per request, the mean over `runs`. */
const cpuLine = (runs: CpuPerRequest[]) =>
  Object.keys(runs[0]!)
    .map((name) => {
      const values = runs.map((r) => r[name]);
      if (values.some((v) => v === undefined)) return `${name} n/a`;
      const mean = (values as number[]).reduce((a, b) => a + b, 0) / values.length;
      return `${name} ${mean.toFixed(2)} ms`;
    })
    .join(", ");

/** The benchmark's Markdown section. */
function report(r: {
  duration: number;
  connections: number;
  seedMs: number;
  load1: string;
  gets: Awaited<ReturnType<typeof measureGets>>;
  creates: Awaited<ReturnType<typeof measureCreates>>;
  figures: Figures[];
  plans: string[];
  activeCounts: string[];
  rssLines: string[];
}): string {
  const { duration, connections, seedMs, load1, figures, plans, activeCounts } = r;
  const { getOne, getGateway, ref, cpu } = r.gets;
  const { createEmpty, createFull, createSpread, createCpu } = r.creates;
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  const pct = (a: number, b: number) => `${Math.round((100 * a) / b)}%`;
  return [
    "## v1 API through the gateway (links)",
    "",
    `\`./kurz bench api --duration ${duration} --connections ${connections}\` — full local stack (gateway → management → Postgres),`,
    `autocannon with ${connections} connections for ${duration} s per row, on the same machine as the services.`,
    `The full account holds ${LINKS.toLocaleString("en")} links seeded in Postgres (${seedMs} ms) plus those the create runs add;`,
    `the other starts empty, as do the ${SPREAD_ACCOUNTS} the spread creates go to in turn. Create rows are the mean of two runs each,`,
    "taken in the order empty, full, spread, spread, full, empty.",
    "",
    `Load average (1 min) at the end of the run: ${load1}; NODE_ENV=production (no response validation).`,
    "",
    `- \`GET /links/:id\` through the public origin / the bare-Node reference: **${pct(getOne.rps, ref.rps)}** (target ≥ 40%), p99 ${fmt(getOne.p99)} ms (target < 20 ms)`,
    `- the same GET at the gateway's own port (without the public origin's hop) / the reference: ${pct(getGateway.rps, ref.rps)}, p99 ${fmt(getGateway.p99)} ms`,
    `- create at ${LINKS.toLocaleString("en")} links / create on the empty account: **${pct(createFull.rps, createEmpty.rps)}** (target ≥ 90%)`,
    `- one account's create / \`GET /links/:id\` throughput: **${pct(createFull.rps, getOne.rps)}** at ${LINKS.toLocaleString("en")} links, ${pct(createEmpty.rps, getOne.rps)} on the empty account (target ≥ 50%)`,
    `- one account's create / creates spread over ${SPREAD_ACCOUNTS} accounts: ${pct(createFull.rps, createSpread.rps)} at ${LINKS.toLocaleString("en")} links, ${pct(createEmpty.rps, createSpread.rps)} on the empty account (about 100%: one account's creates do not wait on each other, and what is left between them and the GET is a create's CPU)`,
    "",
    `CPU per request (user + system, from /proc): GET through the origin: ${cpuLine(cpu.get)}; GET at the gateway's port: ${cpuLine(cpu.gw)}; the reference: ${cpuLine(cpu.ref)}; a create on one account (both): ${cpuLine(createCpu.one)}; a create spread over ${SPREAD_ACCOUNTS} accounts: ${cpuLine(createCpu.spread)}.`,
    "",
    "| endpoint | req/s | p50 ms | p99 ms | requests | non-2xx | errors |",
    "|---|---|---|---|---|---|---|",
    ...figures.map(
      (f) =>
        `| ${f.name} | ${f.rps} | ${fmt(f.p50)} | ${fmt(f.p99)} | ${f.requests} | ${f.non2xx} | ${f.errors} |`,
    ),
    "",
    `EXPLAIN ANALYZE at ${LINKS.toLocaleString("en")} links in one account (page = first 100 rows newest first; count = meta.total, the stored count when unfiltered):`,
    "",
    "| filter | page query | count query |",
    "|---|---|---|",
    ...plans,
    "",
    ...(activeCounts.length > 0
      ? [
          `The analytics summary's \`active_links\` at that size (a third of the links switched off, one in twenty expired):`,
          "",
          ...activeCounts,
          "",
        ]
      : []),
    `Resident memory of the service processes (${process.env.KURZ_STACK_FROM_SOURCE === "1" ? "from source through tsx: KURZ_STACK_FROM_SOURCE=1" : "each from its bundle, decision 0001"}):`,
    "",
    ...r.rssLines,
    "",
  ].join("\n");
}

/** Starts _api-reference.ts as its own process, on the stack's Redis prefix and database. */
async function startReference(stack: { env: Record<string, string>; origin: string }) {
  const port = await new Promise<number>((res, rej) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => res(port));
    });
    probe.once("error", rej);
  });
  const child = spawn(
    process.execPath,
    ["--import", "tsx", resolve(import.meta.dirname, "_api-reference.ts")],
    {
      env: {
        ...process.env,
        PORT: String(port),
        REDIS_URL: stack.env.REDIS_URL!,
        REDIS_KEY_PREFIX: stack.env.REDIS_KEY_PREFIX!,
        DATABASE_URL: stack.env.DATABASE_URL!,
        PUBLIC_BASE_URL: stack.origin,
      },
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(url).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error("the reference server did not start");
    await sleep(100);
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(5_000).then(() => child.kill("SIGKILL"))]);
    },
  };
}
