// A click consumer that runs out of V8 heap must end at once, so that its supervisor (or the test
// that started it) sees it go: Node aborts such a process, and embedded chDB's own SIGABRT handler
// held it for minutes after V8's fatal error (packages/clickhouse/src/chdb-signals.ts).
import { randomUUID } from "node:crypto";
import { createBus } from "@kurz/bus";
import { TOPICS } from "@kurz/contracts";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { migratedChdb } from "@kurz/testing/migrated-chdb";
import { expect, it } from "vitest";
import { fullClickMessage, startClickConsumer } from "./support/click-consumer.ts";

/**
 * An old generation the consumer starts in but one batch of 100 full messages (~50 MB of heap while
 * it is handled, docs/benchmarks/2026-12.md) cannot fit in.
 */
const OLD_SPACE_MB = 24;
/** Far under chDB's wait (five minutes), far over an abort's (under a second here). */
const EXIT_WITHIN_MS = 30_000;

it("ends at once, by SIGABRT, when a batch exhausts its V8 heap", { timeout: 180_000 }, async () => {
  await ensureRedis();
  const prefix = uniquePrefix("an-oom");
  const bus = createBus({ kind: "redis", clientId: "oom-test-publisher", prefix, redisUrl: testRedisUrl() });
  const store = await migratedChdb();
  try {
    const link = { id: randomUUID(), account: randomUUID(), code: "oom" };
    // An hour back: neither in the future nor near any table's TTL, whatever day the test runs.
    const ts = Date.now() - 3_600_000;
    await bus.publish(
      TOPICS.clicks,
      Array.from({ length: 100 }, (_, m) => fullClickMessage(link, ts + m * 1000, m)),
    );

    const consumer = await startClickConsumer({
      path: store.path,
      prefix,
      nodeFlags: [`--max-old-space-size=${OLD_SPACE_MB}`, "--max-semi-space-size=1"],
      // The most a batch takes, whatever the heap: the bound a small heap would get is not asked for.
      env: { MAX_BATCH_SIZE: "100" },
    });
    try {
      await waitFor(() => consumer.output().includes("FATAL ERROR"), {
        timeoutMs: 120_000,
        intervalMs: 100,
        description: "V8's fatal error (out of heap)",
      });
      const ended = await Promise.race([
        consumer.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), EXIT_WITHIN_MS)),
      ]);
      expect(consumer.output()).toMatch(/heap out of memory|Reached heap limit/);
      expect(ended, `still running ${EXIT_WITHIN_MS} ms after V8's fatal error`).toBe(true);
      expect(consumer.child.signalCode).toBe("SIGABRT");
    } finally {
      await consumer.stop("SIGKILL");
    }
  } finally {
    await bus.close();
    await cleanupRedisPrefix(testRedisUrl(), prefix);
    store.remove();
  }
});
