// What most tests of the redirect process stand on: a stand-in management, one or more redirect
// instances on the shared Redis under a key and bus prefix of the test's own (or on a Kafka mock
// broker), a Redis client on that prefix and, when asked, an observer of the clicks topic.
import { topicName } from "@kurz/bus";
import { type KafkaMock, startKafkaMock } from "@kurz/bus/testing";
import { TOPICS } from "@kurz/contracts";
import { cleanupRedisPrefix, printProcessOutputOnFailure, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect } from "vitest";
import { type ClickObserver, observeClicks } from "./click-observer.ts";
import { type FakeManagement, startFakeManagement } from "./fake-management.ts";
import { bootRedirect, type RedirectProcess } from "./redirect-process.ts";

export interface RedirectFixtureOptions {
  /** Names the test's Redis key and bus prefix. */
  name: string;
  /** Added to (or overriding) the environment every instance gets: Redis, bus, token, management. */
  env?: Record<string, string>;
  /** How many instances share the prefix; 1 unless said. */
  instances?: number;
  /** Reads the clicks topic from its start, as analytics would. */
  observe?: boolean;
  /** The bus on a librdkafka mock broker (the clicks topic made with this many partitions), not Redis. */
  kafkaPartitions?: number;
  /** From source through tsx rather than from the bundle. */
  fromSource?: boolean;
  /** Before the instances boot: seed Redis or management, build what they run. */
  before?: (f: RedirectFixture) => Promise<void> | void;
}

export interface RedirectFixture {
  prefix: string;
  token: string;
  mgmt: FakeManagement;
  /** A client whose keys are under the prefix, as the redirect's are. */
  redis: Redis;
  /** Present with `observe`. */
  clicks: ClickObserver;
  /** Present with `kafkaPartitions`. */
  kafka: KafkaMock;
  /** The first of `instances`. */
  redirect: RedirectProcess;
  instances: RedirectProcess[];
  /** Stops what was started, last first; the instances' exit codes. */
  stop(): Promise<(number | null)[]>;
}

/** The environment of a redirect on the shared Redis (cache and bus) under `prefix`, resolving misses at `mgmt`. */
export const sharedRedisEnv = (
  prefix: string,
  token: string,
  mgmt: FakeManagement,
): Record<string, string> => ({
  REDIS_URL: testRedisUrl(),
  REDIS_KEY_PREFIX: `${prefix}:`,
  BUS: "redis",
  BUS_PREFIX: prefix,
  INTERNAL_TOKEN: token,
  MANAGEMENT_URL: mgmt.url,
});

/** Starts the fixture now; the caller stops it. */
export async function startRedirectFixture(opts: RedirectFixtureOptions): Promise<RedirectFixture> {
  const prefix = uniquePrefix(opts.name);
  const token = `token-${prefix}`;
  const f = { prefix, token, instances: [] as RedirectProcess[] } as unknown as RedirectFixture;
  const undo: (() => unknown)[] = [];
  f.stop = async () => {
    const codes = await Promise.all(f.instances.map((r) => r.proc.stop()));
    for (const fn of undo.splice(0).reverse()) await fn();
    return codes;
  };
  try {
    undo.push(() => cleanupRedisPrefix(testRedisUrl(), prefix));
    const busEnv: Record<string, string> = {};
    if (opts.kafkaPartitions) {
      f.kafka = await startKafkaMock({
        topics: [topicName(prefix, TOPICS.clicks)],
        partitions: opts.kafkaPartitions,
      });
      undo.push(() => f.kafka.stop());
      Object.assign(busEnv, { BUS: "kafka", KAFKA_BROKERS: f.kafka.brokers.join(",") });
    }
    f.mgmt = await startFakeManagement(token);
    undo.push(() => f.mgmt.close());
    f.redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
    undo.push(() => f.redis.disconnect());
    if (opts.observe) {
      f.clicks = await observeClicks({ prefix, redisUrl: testRedisUrl(), kafkaBrokers: f.kafka?.brokers });
      undo.push(() => f.clicks.stop());
    }
    await opts.before?.(f);
    const env = { ...sharedRedisEnv(prefix, token, f.mgmt), ...busEnv, ...opts.env };
    for (let i = 0; i < (opts.instances ?? 1); i++)
      f.instances.push(await bootRedirect(env, { bundled: !opts.fromSource }));
    f.redirect = f.instances[0]!;
    return f;
  } catch (err) {
    await f.stop();
    throw err;
  }
}

/**
 * Starts the fixture before the file's tests and stops it after them, each instance required to exit
 * cleanly. The returned object is filled in once the file's setup has run.
 */
export function useRedirectFixture(opts: RedirectFixtureOptions): RedirectFixture {
  printProcessOutputOnFailure();
  const f = {} as RedirectFixture;
  beforeAll(async () => {
    Object.assign(f, await startRedirectFixture(opts));
  });
  afterAll(async () => {
    if (!f.stop) return;
    for (const code of await f.stop()) expect(code).toBe(0);
  });
  return f;
}
