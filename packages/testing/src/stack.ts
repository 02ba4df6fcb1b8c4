// Boots the whole Kurz stack as real processes (the four services, from their bundles as in
// production: decision 0001), isolated for one test file:
// its own Postgres database, Redis key prefix, bus prefix, embedded ClickHouse (chDB) data directory
// and free ports.
// With `inProcess: true` the same four services run inside the test's own process instead (same
// isolation, same ports and URLs): the default for every test that reaches the stack through its
// listeners (handler tests, the attack and end-to-end suites), which then start in about a second.
// Keep processes for what crosses processes for real (docs/decisions/0011-in-process-test-stack.md).
// Import from "@kurz/testing/stack". For BUS=kafka pass brokers from startKafkaMock (@kurz/bus/testing)
// created with `stackTopics(prefix)` so the topics exist with their partitions.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bundlePath, ensureBundles, nodeFlagsFor } from "./bundles.ts";
import { migratedChdb } from "./migrated-chdb.ts";
import { createMigratedDatabase } from "./migrated-database.ts";
import { getFreePort } from "./net.ts";
import { type StartedProcess, startProcess } from "./process.ts";
import { cleanupRedisPrefix, uniquePrefix } from "./redis.ts";
import { accountCreator, type CreatedAccount } from "./stack-services.ts";

export type { CreatedAccount };

const root = resolve(import.meta.dirname, "../../..");
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
/**
 * How long a stopped service may take before it is killed (and its stop fails the test). A service
 * bounds its own shutdown at 25 s (service-kit's lifecycle.ts: 10 s for open connections to finish,
 * 10 s for close(), 5 s for the last log lines); 15 s here can kill a service inside that budget on a
 * slow host, while a client's connection holds its drain.
 */
const SERVICE_STOP_MS = 30_000;

export interface Stack {
  /** The public origin (the gateway), e.g. http://127.0.0.1:41234 */
  origin: string;
  prefix: string;
  /**
   * Direct URLs of each service, for tests that must bypass the gateway; the `…Ops` ones are the
   * services' operational listeners (/health, /ready, /metrics), which the public origin never serves.
   */
  urls: {
    gateway: string;
    /** The gateway's own listener, behind the public origin (to measure what that hop costs). */
    gatewayInternal: string;
    /** The gateway's splice listener (PROXY protocol; decision 0038), which the public origin connects to. */
    gatewaySplice: string;
    management: string;
    redirect: string;
    analytics: string;
    redirectOps: string;
    gatewayOps: string;
    managementOps: string;
    analyticsOps: string;
  };
  databaseUrl: string;
  env: Record<string, string>;
  /** Each service's process id (all the test's own process when in-process), e.g. for RSS readings. */
  pids: { gateway: number; management: number; redirect: number; analytics: number };
  createAccount(email: string, linkLimit?: number): Promise<CreatedAccount>;
  /** Every service's log lines so far (the last few thousand in process), to check what is logged. */
  output(): string;
  stop(): Promise<void>;
}

/** The physical bus topics a stack with this prefix uses (for creating them on a Kafka test broker). */
export function stackTopics(prefix: string): string[] {
  const topics = ["clicks", "links", "click-totals"].map((t) => `${prefix}.${t}`);
  return [...topics, ...topics.map((t) => `${t}.dlq`)];
}

export interface StackOptions {
  prefix?: string;
  bus?: "redis" | "kafka";
  kafkaBrokers?: string[];
  /** Extra environment for every service (e.g. lower rate limits). */
  extraEnv?: Record<string, string>;
  /**
   * Extra environment for one service, after extraEnv: e.g. `{ redirect: { TRUST_PROXY: "false" } }`
   * runs the public origin as `./kurz up` does (no proxy in front).
   */
  serviceEnv?: Partial<Record<"gateway" | "management" | "redirect" | "analytics", Record<string, string>>>;
  /**
   * Run the services inside this process (the test's vitest worker) by their start functions
   * (services/<name>/src/service.ts, management's compose.ts) rather than as child processes. One
   * in-process stack at a time per process (a file may start another once the first has stopped):
   * embedded ClickHouse (chDB) has one engine per process. KURZ_TEST_STACK=processes turns it off for
   * a whole run.
   */
  inProcess?: boolean;
  /**
   * Run on this database, already migrated, instead of a fresh copy of the migrated template: e.g. one
   * loaded with data recorded by an older version and migrated since. It stays the caller's to drop.
   */
  databaseUrl?: string;
}

type ServiceName = keyof Stack["pids"];

/** What every way of running a stack's services shares: its stores, ports, URLs and environment. */
interface StackLayout {
  prefix: string;
  origin: string;
  urls: Stack["urls"];
  databaseUrl: string;
  env: Record<string, string>;
  ports: Record<ServiceName, number>;
  /** A service's whole environment: the stack's, its own, the test's, then its port. */
  envFor(name: ServiceName): Record<string, string>;
  readyUrl(name: ServiceName): string;
  /** Removes the stack's data: its Redis keys, spool, chDB directory and database. */
  cleanup(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const layout = await layOut(opts);
  // KURZ_TEST_STACK=processes runs even in-process stacks as processes (to compare, or to debug).
  if (opts.inProcess && process.env.KURZ_TEST_STACK !== "processes") return startInProcess(layout);
  return startProcesses(layout);
}

/** The stack's own database, chDB directory, spool, ports and environment, before any service starts. */
async function layOut(opts: StackOptions): Promise<StackLayout> {
  const prefix = opts.prefix ?? uniquePrefix("stack");
  const spoolDir = mkdtempSync(join(tmpdir(), `kurz-spool-${prefix}-`));
  // Both copies of templates migrated once per set of migrations (migrated-database.ts,
  // migrated-chdb.ts): a stack starts with its schemas as after `./kurz db:migrate` and analytics' own
  // migrations, without applying them.
  const adopted = opts.databaseUrl;
  const [made, copied] = await Promise.allSettled([
    adopted === undefined ? createMigratedDatabase("stack") : { url: adopted, drop: async () => {} },
    migratedChdb(),
  ]);
  if (made.status === "rejected" || copied.status === "rejected") {
    rmSync(spoolDir, { recursive: true, force: true });
    if (made.status === "fulfilled") await made.value.drop();
    if (copied.status === "fulfilled") copied.value.remove();
    throw made.status === "rejected" ? made.reason : (copied as PromiseRejectedResult).reason;
  }
  const [db, chdb] = [made.value, copied.value];
  const [gw, mg, rd, an, ops, splice, spliceReturn, gwOps, mgOps, anOps] = await Promise.all([
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
    getFreePort(),
  ]);
  // As in `./kurz up`: the redirect service owns the public origin and pipes API paths to the gateway.
  const origin = `http://127.0.0.1:${rd}`;
  const env: Record<string, string> = {
    LOG_LEVEL: "warn",
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_KEY_PREFIX: `${prefix}:`,
    BUS: opts.bus ?? "redis",
    BUS_PREFIX: prefix,
    ...(opts.kafkaBrokers ? { KAFKA_BROKERS: opts.kafkaBrokers.join(",") } : {}),
    PUBLIC_BASE_URL: origin,
    // As in `./kurz up`: this machine's names are the origin's too, whatever PUBLIC_BASE_URL names (a test
    // may give it a DNS name and still reach the stack on 127.0.0.1); any other Host is a tenant's or none.
    PUBLIC_HOSTS: "localhost,127.0.0.1,[::1]",
    INTERNAL_TOKEN: `token-${prefix}`,
    MANAGEMENT_URL: `http://127.0.0.1:${mg}`,
    ANALYTICS_URL: `http://127.0.0.1:${an}`,
    REDIRECT_URL: `http://127.0.0.1:${rd}`,
    CLICKHOUSE_PATH: chdb.path,
    SPOOL_DIR: spoolDir,
    TRUST_PROXY: "true",
    // A test's links are checked when it asks: scheduled checks would race its assertions (a test of the
    // scheduler drives it itself, or turns it on with extraEnv).
    HEALTH_SCHEDULE: "off",
    // No OUTBOX_POLL_MS: management wakes its outbox relay after every commit that writes events, so
    // the poll only picks up what another process wrote (an import CLI, a second instance). At 50 ms
    // it costs each idle management ~5 % of a core and Postgres as much again, in every stack of a
    // whole run; the service's own 200 ms is what production polls at.
    ...opts.extraEnv,
  };
  // API connections are spliced from the public origin to the gateway (decision 0038); the splice
  // listener believes the hops the redirect believes (TRUST_PROXY, unless a test changes it).
  const redirectTrust =
    opts.serviceEnv?.redirect?.TRUST_PROXY ?? opts.extraEnv?.TRUST_PROXY ?? env.TRUST_PROXY!;
  const own: Record<string, Record<string, string>> = {
    management: { OPS_PORT: String(mgOps) },
    analytics: { OPS_PORT: String(anOps) },
    gateway: {
      OPS_PORT: String(gwOps),
      REDIRECT_URL: "",
      SPLICE_PORT: String(splice),
      SPLICE_TRUST_PROXY: redirectTrust,
      SPLICE_RETURN_URL: `http://127.0.0.1:${spliceReturn}`,
    },
    redirect: {
      API_UPSTREAM_URL: `http://127.0.0.1:${gw}`,
      API_SPLICE_PORT: String(splice),
      SPLICE_RETURN_PORT: String(spliceReturn),
      OPS_PORT: String(ops),
    },
  };
  // The redirect answers readiness only on its operational listener (docs/redirect.md).
  const readyPort = (name: string, port: number) => (name === "redirect" ? ops : port);
  const urls = {
    gateway: origin,
    gatewayInternal: `http://127.0.0.1:${gw}`,
    gatewaySplice: `http://127.0.0.1:${splice}`,
    management: env.MANAGEMENT_URL!,
    redirect: env.REDIRECT_URL!,
    analytics: env.ANALYTICS_URL!,
    redirectOps: `http://127.0.0.1:${ops}`,
    gatewayOps: `http://127.0.0.1:${gwOps}`,
    managementOps: `http://127.0.0.1:${mgOps}`,
    analyticsOps: `http://127.0.0.1:${anOps}`,
  };
  const cleanup = async () => {
    await cleanupRedisPrefix(REDIS_URL, prefix);
    rmSync(spoolDir, { recursive: true, force: true });
    chdb.remove();
    await db.drop();
  };
  const ports = { management: mg, analytics: an, redirect: rd, gateway: gw };
  return {
    prefix,
    origin,
    urls,
    databaseUrl: db.url,
    env,
    ports,
    envFor: (name) => ({
      ...env,
      ...own[name],
      ...opts.extraEnv,
      ...opts.serviceEnv?.[name],
      PORT: String(ports[name]),
    }),
    readyUrl: (name) => `http://127.0.0.1:${readyPort(name, ports[name])}/ready`,
    cleanup,
  };
}

/** The four services inside this process (in-process.ts). */
async function startInProcess(layout: StackLayout): Promise<Stack> {
  const { startServicesInProcess } = await import("./in-process.ts");
  const services = await startServicesInProcess(layout.envFor, layout.readyUrl).catch(
    async (err: unknown) => {
      await layout.cleanup();
      throw err;
    },
  );
  return stackOf(layout, {
    pids: { gateway: process.pid, management: process.pid, redirect: process.pid, analytics: process.pid },
    createAccount: (email, linkLimit) => services.createAccount(email, linkLimit),
    output: () => services.output(),
    stop: async () => {
      try {
        await services.stop();
      } finally {
        await layout.cleanup();
      }
    },
  });
}

/** The Stack a test gets: the layout's addresses, and how its services run. */
function stackOf(
  layout: StackLayout,
  running: Pick<Stack, "pids" | "createAccount" | "output" | "stop">,
): Stack {
  const { origin, prefix, urls, databaseUrl, env } = layout;
  return { origin, prefix, urls, databaseUrl, env, ...running };
}

/** The four services as child processes, as `./kurz up` and the images run them. */
async function startProcesses(layout: StackLayout): Promise<Stack> {
  const { env, cleanup } = layout;
  // As `./kurz up` and the images run them: from their bundles (decision 0001).
  // KURZ_STACK_FROM_SOURCE=1 runs them from source through tsx instead (to compare start-up and memory).
  const fromSource = process.env.KURZ_STACK_FROM_SOURCE === "1";
  // KURZ_STACK_NODE_FLAGS adds node flags to every service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` to
  // profile them under a benchmark; node refuses --cpu-prof in NODE_OPTIONS).
  const extraFlags = (process.env.KURZ_STACK_NODE_FLAGS ?? "").split(" ").filter(Boolean);
  if (!fromSource)
    await ensureBundles().catch(async (err: unknown) => {
      await cleanup();
      throw err;
    });
  const procs: StartedProcess[] = [];
  const pids = { gateway: 0, management: 0, redirect: 0, analytics: 0 };
  const boot = (name: ServiceName) =>
    startProcess({
      cmd: process.execPath,
      args: fromSource
        ? ["--import", "tsx", `services/${name}/src/main.ts`]
        : [...nodeFlagsFor(name), ...extraFlags, bundlePath(name)],
      cwd: root,
      env: layout.envFor(name),
      readyUrl: layout.readyUrl(name),
      readyTimeoutMs: 60_000,
    }).then((p) => {
      procs.push(p);
      pids[name] = p.pid;
      return p;
    });
  // allSettled, not all: when one service fails to boot, the others may still be starting, and each
  // must be stopped once it is up (or has failed on its own) so that no process outlives the test.
  const booted = await Promise.allSettled([
    boot("management"),
    boot("analytics"),
    boot("redirect"),
    boot("gateway"),
  ]);
  const failure = booted.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure) {
    for (const p of procs) console.error(p.output());
    await Promise.all(procs.map((p) => p.stop()));
    await cleanup();
    throw failure.reason;
  }

  const accounts = accountCreator({ ...process.env, ...env });
  return stackOf(layout, {
    pids,
    // What the CLI does, in this process (management registers it: stack-services.ts): a CLI process
    // per account cost 7–15 s here.
    createAccount: (email, linkLimit) => accounts.createAccount(email, linkLimit),
    output: () => procs.map((p) => p.output()).join(""),
    stop: async () => {
      await accounts.close();
      const codes = await Promise.all([...procs].reverse().map((p) => p.stop("SIGTERM", SERVICE_STOP_MS)));
      await cleanup();
      if (codes.some((c) => c !== 0)) {
        for (const p of procs) console.error(p.output());
        throw new Error(`a service did not exit cleanly: exit codes ${codes.join(", ")}`);
      }
    },
  });
}
