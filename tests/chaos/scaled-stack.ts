// A scaled stack as an operator starts it: `./kurz up --scale ...` (infra/local/up.ts, its supervisor
// and the nginx edge), on free ports, over the Kafka mock cluster with 3 brokers, a test database and
// a private data directory. Only the bundles are built beforehand (once for every test file).
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type KafkaMock, kafkaOffsetsReader, startKafkaMock } from "@kurz/bus/testing";
import { migrateDatabase } from "@kurz/db";
import {
  cleanupRedisPrefix,
  createTestDatabase,
  ensureRedis,
  getFreePortBase,
  type StartedProcess,
  startProcess,
  testRedisUrl,
  uniquePrefix,
  waitFor,
} from "@kurz/testing";
import { accountCreator } from "@kurz/testing/accounts";
import { ensureBundles } from "@kurz/testing/bundles";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { stackTopics } from "@kurz/testing/stack";

const root = resolve(import.meta.dirname, "../..");

export interface ScaledStack {
  origin: string;
  base: number;
  dataDir: string;
  kafka: KafkaMock;
  /** Loopback URL of redirect instance i (0-based), bypassing the edge. */
  redirectUrl(i: number): string;
  /** Process id of an instance as `./kurz up` names it (e.g. redirect-2), from <data>/run. */
  pid(name: string): number;
  /** Where an instance (named as for `pid`) answers /ready: the redirect's on its operational listener. */
  readyUrl(name: string): string;
  /**
   * Waits until the supervisor has started instance `name` again after its process `pid` ended, and
   * the new process is ready.
   */
  restarted(name: string, pid: number, timeoutMs?: number): Promise<void>;
  /**
   * Waits until every click answered so far is stored: no redirect instance holds one (in memory or in
   * its spool), and the analytics group has committed every message of the clicks topic, which it does
   * once their clicks are inserted. False when that has not happened within `timeoutMs`.
   */
  clicksStored(timeoutMs: number): Promise<boolean>;
  /**
   * An account and its key, as `./kurz accounts:create` makes them with the stack's environment and
   * then `keyEnv` (e.g. RATE_LIMIT_PER_MINUTE, for the key's limits).
   */
  createAccount(
    email: string,
    linkLimit?: number,
    keyEnv?: Record<string, string>,
  ): Promise<{ account_id: string; api_key: string }>;
  output(): string;
  databaseUrl: string;
  /** Prefix of the stack's topics, groups and Redis keys (BUS_PREFIX). */
  prefix: string;
  stop(): Promise<void>;
}

export interface ScaledStackOptions {
  scale: Record<string, number>;
  env?: Record<string, string>;
  /** A private Postgres's admin URL (default: the machine's test server). */
  pgAdminUrl?: string;
  /** A private Redis (default: the machine's test server). */
  redisUrl?: string;
}

/** The ports `./kurz up --scale` takes from its base (infra/local/up.ts): the stack's base leaves all free. */
const STACK_PORT_OFFSETS = [
  0, 1, 3, 4, 10, 20, 21, 22, 30, 31, 32, 40, 41, 42, 43, 60, 61, 62, 63, 70, 71, 72, 80, 81, 82, 90, 1002,
];

export async function startScaledStack(opts: ScaledStackOptions): Promise<ScaledStack> {
  const redisUrl = opts.redisUrl ?? testRedisUrl();
  await ensureRedis(redisUrl);
  const prefix = uniquePrefix("chaos");
  const topics = stackTopics(prefix).map((t) => (t.endsWith(".clicks") ? `${t}:6` : t));
  // The bundles, the Kafka mock cluster and the database do not depend on each other: side by side.
  // On the machine's Postgres the database is a copy of the migrated template the other stacks use
  // (migrated-database.ts); a private Postgres is migrated for real (a template there would be built
  // for this one database).
  const started = await Promise.allSettled([
    ensureBundles(),
    startKafkaMock({ topics, partitions: 3, brokers: 3 }),
    opts.pgAdminUrl
      ? createTestDatabase("chaos", { migrate: migrateDatabase, adminUrl: opts.pgAdminUrl })
      : createMigratedDatabase("chaos"),
  ] as const);
  const [bundles, kafkaStarted, dbCreated] = started;
  if (
    bundles.status === "rejected" ||
    kafkaStarted.status === "rejected" ||
    dbCreated.status === "rejected"
  ) {
    if (kafkaStarted.status === "fulfilled") await kafkaStarted.value.stop();
    if (dbCreated.status === "fulfilled") await dbCreated.value.drop();
    throw started.find((r): r is PromiseRejectedResult => r.status === "rejected")!.reason;
  }
  const kafka = kafkaStarted.value;
  const db = dbCreated.value;
  const dataDir = await mkdtemp(join(tmpdir(), "kurz-chaos-"));
  const base = await getFreePortBase(STACK_PORT_OFFSETS);
  const env: Record<string, string> = {
    LOG_LEVEL: "warn",
    KURZ_SKIP_BUILD: "1",
    KURZ_DATA_DIR: dataDir,
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `${prefix}:`,
    BUS: "kafka",
    BUS_PREFIX: prefix,
    KAFKA_BROKERS: kafka.brokers.join(","),
    // The mock cluster's group joins wait sessionTimeout - 1 s (decision 0003): test-only values.
    KAFKA_SESSION_TIMEOUT_MS: "3000",
    KAFKA_REBALANCE_TIMEOUT_MS: "3000",
    KAFKA_HEARTBEAT_MS: "300",
    INTERNAL_TOKEN: `token-${prefix}`,
    // No OUTBOX_POLL_MS: a management instance wakes its outbox relay after every commit that writes
    // events, so the poll only picks up what the other instance left (killed, or its round met the
    // other's lock). The service's own 200 ms does that well within the edit test's bound; a 50 ms
    // poll would cost each idle instance ~5 % of a core and Postgres as much again (as in stack.ts).
    ...opts.env,
  };
  const scale = Object.entries(opts.scale)
    .map(([s, n]) => `${s}=${n}`)
    .join(",");
  let proc: StartedProcess;
  try {
    proc = await startProcess({
      cmd: process.execPath,
      args: ["--import", "tsx", "infra/local/up.ts", "--scale", scale, "--base-port", String(base)],
      cwd: root,
      env,
      readyLine: "Kurz is up.",
      readyTimeoutMs: 150_000,
    });
  } catch (err) {
    await kafka.stop();
    await db.drop();
    throw err;
  }
  // One creator (and its database client) per environment asked for.
  const creators = new Map<string, ReturnType<typeof accountCreator>>();
  const creator = (keyEnv: Record<string, string> = {}) => {
    const key = JSON.stringify(keyEnv);
    let made = creators.get(key);
    if (!made) {
      made = accountCreator({ ...process.env, ...env, ...keyEnv, DATABASE_URL: db.url });
      creators.set(key, made);
    }
    return made;
  };
  const pid = (name: string) => Number(readFileSync(join(dataDir, "run", `${name}.pid`), "utf8").trim());
  const readyUrl = (name: string) => `http://127.0.0.1:${instancePort(base, name)}/ready`;
  const answers = (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
      async (r) => (r.ok ? r.text() : null),
      () => null,
    );
  const redirects = Array.from({ length: opts.scale.redirect ?? 1 }, (_, i) => `redirect-${i + 1}`);
  // clicksStored polls the offsets four times a second: over one connection, not one per poll.
  const offsets = kafkaOffsetsReader(kafka.brokers);
  return {
    origin: `http://127.0.0.1:${base}`,
    base,
    dataDir,
    kafka,
    redirectUrl: (i) => `http://127.0.0.1:${base + 40 + i}`,
    pid,
    readyUrl,
    restarted: async (name, before, timeoutMs = 60_000) => {
      await waitFor(async () => pid(name) !== before && (await answers(readyUrl(name))) !== null, {
        timeoutMs,
        intervalMs: 100,
        description: `${name} restarted and ready`,
      });
    },
    clicksStored: (timeoutMs) =>
      waitFor(
        async () => {
          for (const name of redirects) {
            const text = await answers(readyUrl(name).replace(/\/ready$/, "/metrics"));
            const gauge = (g: string) => new RegExp(`^${g} (\\d+)$`, "m").exec(text ?? "")?.[1];
            if (gauge("clicks_buffered") !== "0" || gauge("clicks_spooled") !== "0") return false;
          }
          const clicks = await offsets.read(`${prefix}.clicks`, `${prefix}.analytics-clicks`);
          // A partition no click went to has nothing to commit.
          return clicks.every((p) => p.high === 0 || p.committed >= p.high);
        },
        { timeoutMs, intervalMs: 250, description: "every answered click stored" },
      ).then(
        () => true,
        () => false,
      ),
    createAccount: (email, linkLimit, keyEnv) => creator(keyEnv).createAccount(email, linkLimit),
    output: () => proc.output(),
    databaseUrl: db.url,
    prefix,
    async stop() {
      try {
        // up.ts stops every instance in reverse order on SIGTERM (SIGKILL after its grace period).
        await proc.stop("SIGTERM");
      } finally {
        for (const made of creators.values()) await made.close();
        await offsets.close();
        await kafka.stop();
        await cleanupRedisPrefix(redisUrl, prefix).catch(() => {});
        await db.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The port of an instance as `./kurz up --scale` lays them out (infra/local/up.ts): a redirect's
 * operational listener from base+60; numbered instances of the others from base+20 (management),
 * base+30 (gateway), base+50 (analytics); a lone management or analytics on base+1 or base+3.
 */
function instancePort(base: number, name: string): number {
  const [, service, nth] = /^([a-z]+)(?:-(\d+))?$/.exec(name) ?? [];
  const i = nth ? Number(nth) - 1 : 0;
  if (service === "redirect") return base + 60 + i;
  if (!nth && (service === "management" || service === "analytics"))
    return base + (service === "management" ? 1 : 3);
  const first = { management: 20, gateway: 30, analytics: 50 }[service ?? ""];
  if (first === undefined) throw new Error(`no instance ${name}`);
  return base + first + i;
}
