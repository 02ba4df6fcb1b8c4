// A click backlog drained by a consumer whose V8 heap is far smaller than one default batch needs
// (100 messages of 200 clicks): the consumer sizes its batches from the heap limit, so it stays alive
// and counts every click once, in the raw table and the rollups.
import { randomUUID } from "node:crypto";
import { createBus, topicName } from "@kurz/bus";
import { redisGroupDone } from "@kurz/bus/testing";
import { createClickHouse } from "@kurz/clickhouse";
import { CLICK_BATCH_MAX, TOPICS } from "@kurz/contracts";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { CHDB_DATABASE, migratedChdb } from "@kurz/testing/migrated-chdb";
import { expect, it } from "vitest";
import { clickBatchMessages } from "../src/ingest/click-batch-bound.ts";
import { CLICKS_GROUP } from "../src/ingest/clicks.ts";
import { fullClickMessage, startClickConsumer } from "./support/click-consumer.ts";

/**
 * V8's heap limit for these flags, the old generation and three semi-spaces: 43 MB, for which the
 * consumer takes 37 messages a batch. With 100 (the most, and the bound of a heap over ~115 MB) this
 * process ran out of heap in its first batch.
 */
const OLD_SPACE_MB = 40;
const SEMI_SPACE_MB = 1;
const HEAP_LIMIT = (OLD_SPACE_MB + 3 * SEMI_SPACE_MB) * 2 ** 20;
/** 150 full messages: four of the heap's batches, and more than the largest batch holds. */
const MESSAGES = 150;

it("drains a backlog in batches its small heap holds, every click counted once", {
  timeout: 180_000,
}, async () => {
  const bound = clickBatchMessages(HEAP_LIMIT);
  expect(bound).toBe(37);
  await ensureRedis();
  const prefix = uniquePrefix("an-heap");
  const bus = createBus({ kind: "redis", clientId: "heap-test-publisher", prefix, redisUrl: testRedisUrl() });
  const store = await migratedChdb();
  try {
    const account = randomUUID();
    const links = Array.from({ length: 50 }, (_, i) => ({ id: randomUUID(), account, code: `c${i}` }));
    // An hour back, so that the clicks (spread over a few minutes from it) are neither in the future
    // nor old enough for any table's TTL, whatever day the test runs.
    const ts = Date.now() - 3_600_000;
    for (let m = 0; m < MESSAGES; m += 50) {
      const messages = Array.from({ length: 50 }, (_, k) =>
        fullClickMessage(links[(m + k) % links.length]!, ts + (m + k) * 1000, m + k),
      );
      await bus.publish(TOPICS.clicks, messages);
    }
    const total = MESSAGES * CLICK_BATCH_MAX;

    const consumer = await startClickConsumer({
      path: store.path,
      prefix,
      nodeFlags: [`--max-old-space-size=${OLD_SPACE_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`],
      env: { MAX_BATCH_SIZE: "heap" },
    });
    // A process out of V8 heap prints V8's fatal error and aborts (out-of-heap-exit.test.ts).
    const died = () =>
      consumer.child.exitCode !== null ||
      consumer.child.signalCode !== null ||
      consumer.output().includes("FATAL ERROR");
    await waitFor(
      async () =>
        died() || (await redisGroupDone(testRedisUrl(), topicName(prefix, TOPICS.clicks), CLICKS_GROUP)),
      { timeoutMs: 120_000, intervalMs: 250, description: "every message stored and acknowledged" },
    );
    if (died()) await consumer.stop("SIGKILL");
    expect(died(), consumer.output().slice(-2000)).toBe(false);
    expect(await consumer.stop("SIGTERM")).toBe(0);
    const inserts = [...consumer.output().matchAll(/inserted (\d+)/g)].map((m) => Number(m[1]));
    expect(inserts.reduce((n, i) => n + i, 0)).toBe(total);
    // No batch held more than the heap's bound allows.
    expect(Math.max(...inserts)).toBeLessThanOrEqual(bound * CLICK_BATCH_MAX);

    const ch = await createClickHouse({ path: store.path, database: CHDB_DATABASE });
    try {
      const one = async (sql: string) => Number(Object.values((await ch.query(sql))[0]!)[0]);
      expect(await one("SELECT count() FROM clicks FINAL")).toBe(total);
      expect(await one("SELECT uniqExact(click_id) FROM clicks")).toBe(total);
      expect(await one("SELECT sum(clicks) FROM link_daily")).toBe(total);
      expect(await one("SELECT sum(n) FROM link_stats WHERE level = 'hour' AND a = 'browser'")).toBe(total);
      expect(await one("SELECT sum(clicks) FROM link_dim_total WHERE dim = 'country'")).toBe(total);
    } finally {
      await ch.close();
    }
  } finally {
    await bus.close();
    await cleanupRedisPrefix(testRedisUrl(), prefix);
    store.remove();
  }
});
