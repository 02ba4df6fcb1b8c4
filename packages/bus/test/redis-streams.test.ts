import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { SOLO_CRASHES_TO_DEAD_LETTER } from "../src/deliver-batch.ts";
import { createBus, DEAD_LETTER_HEADERS, type IncomingMessage, topicName } from "../src/index.ts";
import { runConformance } from "./conformance.ts";
import { pause, testLogger, waitFor } from "./helpers.ts";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
// Every stream this file touches lives under this prefix; it is deleted afterwards.
const prefix = `bus-test-${randomUUID()}`;
const admin = new Redis(redisUrl);

const makeBus = (redis: { maxLen?: number; claimIdleMs?: number } = {}) =>
  createBus({
    kind: "redis",
    clientId: "bus-test",
    prefix,
    redisUrl,
    // Short idle time so that reclaiming a dead consumer's entries happens within the test.
    redis: { claimIdleMs: 500, ...redis },
    logger: testLogger(),
  });

afterAll(async () => {
  const keys = await admin.keys(`${prefix}.*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

runConformance("redis-streams", () => makeBus(), {
  perKeyOrderAcrossConsumers: "redis streams share one stream's entries across consumers; see ADR 0003",
  publishOrderAcrossKeys: true,
  countsRedeliveries: true,
  makeUnreachableBus: () =>
    createBus({ kind: "redis", clientId: "bus-test", redisUrl: "redis://127.0.0.1:1", logger: testLogger() }),
});

describe("redis-streams adapter", () => {
  it("trims only entries every group has acknowledged, and only past maxLen", async () => {
    const bus = makeBus({ maxLen: 100 });
    const stream = topicName(prefix, "trim");
    // A group that never reads: everything stays needed by it.
    const idle = await bus.subscribe({ topic: "trim", group: "idle", handler: async () => {} });
    await idle.stop();
    let handled = 0;
    const count = async (batch: unknown[]) => {
      handled += batch.length;
    };
    await bus.subscribe({ topic: "trim", group: "busy", handler: count });
    for (let i = 0; i < 10; i++) {
      await bus.publish(
        "trim",
        Array.from({ length: 100 }, (_, n) => ({ key: "k", value: { n } })),
      );
    }
    await waitFor("all handled", () => handled >= 1000);
    // Acknowledged by the busy group, still needed by the idle one: nothing may be trimmed.
    await pollUntil(async () => Number((await admin.xpending(stream, "busy"))[0]) === 0);
    expect(await admin.xlen(stream)).toBe(1000);

    // Once the idle group is gone, acknowledged entries become trimmable. A new consumer checks
    // at its first batch (the old one checks at most every few seconds).
    await bus.close();
    await admin.call("XGROUP", "DESTROY", stream, "idle");
    const bus2 = makeBus({ maxLen: 100 });
    await bus2.subscribe({ topic: "trim", group: "busy", handler: count });
    await bus2.publish("trim", [{ key: "k", value: { n: -1 } }]);
    await waitFor("last message handled", () => handled >= 1001);
    await pollUntil(async () => (await admin.xlen(stream)) < 1001);
    // Approximate trimming drops whole nodes below the floor: the newest entry always stays.
    const remaining = await admin.xlen(stream);
    expect(remaining).toBeLessThan(1001);
    expect(remaining).toBeGreaterThanOrEqual(1);
    await bus2.close();
  });

  it("reads no more entries a batch than fit in maxFetchBytes, at the size entries have had", async () => {
    const bus = makeBus();
    // A backlog of 60 entries of ~10 kB, then a consumer that may read 50 kB ahead.
    const value = "x".repeat(10_000);
    await bus.publish(
      "fetch-bytes",
      Array.from({ length: 60 }, (_, n) => ({ key: `k${n}`, value })),
    );
    const batches: IncomingMessage<string>[][] = [];
    await bus.subscribe<string>({
      topic: "fetch-bytes",
      group: "g",
      maxFetchBytes: 50_000,
      handler: async (b) => void batches.push(b),
    });
    await waitFor("every entry handled", () => batches.flat().length >= 60);
    await bus.close();
    expect(new Set(batches.flat().map((m) => m.key)).size).toBe(60);
    const sizes = batches.map((b) => b.reduce((n, m) => n + JSON.stringify(m.value).length, 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50_000);
    // Bounded by bytes, not read one at a time: four entries and their keys and headers fill 50 kB.
    expect(Math.max(...batches.map((b) => b.length))).toBe(4);
  });

  it("dead-letters an entry that is not valid JSON without calling the handler", async () => {
    const bus = makeBus();
    const handled: IncomingMessage[] = [];
    const dead: IncomingMessage[] = [];
    await bus.subscribe({ topic: "garbage", group: "g", handler: async (b) => void handled.push(...b) });
    await bus.subscribe({ topic: "garbage.dlq", group: "g", handler: async (b) => void dead.push(...b) });
    await admin.xadd(topicName(prefix, "garbage"), "*", "k", "bad", "v", "{not json", "h", "{}");
    await bus.publish("garbage", [{ key: "good", value: 1 }]);
    await waitFor("dead letter", () => dead.length >= 1 && handled.length >= 1);
    expect(handled.map((m) => m.key)).toEqual(["good"]);
    expect(dead[0]!.key).toBe("bad");
    expect(dead[0]!.value).toBe("{not json");
    expect(dead[0]!.headers[DEAD_LETTER_HEADERS.error]).toMatch(/undecodable/);
    await bus.close();
  });

  /** Publishes one entry to `topic`, then has consumers fetch it and die without acknowledging it, `times` over. */
  async function diedWith(topic: string, times: number): Promise<string> {
    const stream = topicName(prefix, topic);
    await admin.call("XGROUP", "CREATE", stream, "g", "0", "MKSTREAM");
    await bus().publish(topic, [{ key: "suspect", value: { n: 1 } }]);
    const read = (await admin.call("XREADGROUP", "GROUP", "g", "ghost", "STREAMS", stream, ">")) as [
      string,
      [string, string[]][],
    ][];
    const id = read[0]![1][0]![0];
    for (let i = 1; i < times; i++) await admin.call("XCLAIM", stream, "g", `ghost-${i}`, 0, id);
    return id;
  }
  let publisher: ReturnType<typeof makeBus> | undefined;
  const bus = () => (publisher ??= makeBus());

  it("hands an entry redelivered past maxAttempts to the handler alone: crashes beside other entries are not its fault", async () => {
    await diedWith("crashloop", 4);
    await bus().publish("crashloop", [{ key: "fresh", value: { n: 2 } }]);
    const calls: string[][] = [];
    const dead: IncomingMessage[] = [];
    const consumer = makeBus();
    await consumer.subscribe({
      topic: "crashloop",
      group: "g",
      maxAttempts: 3,
      handler: async (b) => void calls.push(b.map((m) => m.key)),
    });
    await consumer.subscribe({
      topic: "crashloop.dlq",
      group: "g",
      handler: async (b) => void dead.push(...b),
    });
    await waitFor("both handled", () => calls.flat().length >= 2);
    expect(calls.find((c) => c.includes("suspect"))).toEqual(["suspect"]);
    expect(calls.flat().sort()).toEqual(["fresh", "suspect"]);
    await pause(200);
    expect(dead).toEqual([]);
    await consumer.close();
  });

  it("dead-letters, without calling the handler, an entry its consumers died handling alone (crash loop)", async () => {
    const id = await diedWith("killer", 4);
    const dead: IncomingMessage[] = [];
    // Each consumer takes the entry over, calls the handler with it alone and never returns, as a
    // process killed by it would; stopped past its drain time, it leaves the entry pending.
    for (let i = 0; i < SOLO_CRASHES_TO_DEAD_LETTER; i++) {
      const doomed = makeBus();
      let called = false;
      await doomed.subscribe({
        topic: "killer",
        group: "g",
        maxAttempts: 3,
        drainTimeoutMs: 50,
        handler: (b) => {
          expect(b.map((m) => m.id)).toEqual([id]);
          called = true;
          return new Promise(() => {});
        },
      });
      await waitFor(`consumer ${i} handling it`, () => called);
      await doomed.close();
    }
    const handled: IncomingMessage[] = [];
    const last = makeBus();
    await last.subscribe({
      topic: "killer",
      group: "g",
      maxAttempts: 3,
      handler: async (b) => void handled.push(...b),
    });
    await last.subscribe({ topic: "killer.dlq", group: "g", handler: async (b) => void dead.push(...b) });
    await waitFor("dead letter", () => dead.length >= 1);
    expect(handled).toEqual([]);
    expect(dead[0]!.headers[DEAD_LETTER_HEADERS.error]).toMatch(/died handling it alone/);
    expect(dead[0]!.headers[DEAD_LETTER_HEADERS.attempts]).toBe(String(4 + SOLO_CRASHES_TO_DEAD_LETTER));
    // Dead-lettered, the entry's crash count is gone with it.
    expect(await admin.hlen(`${topicName(prefix, "killer")}:g:solo-crashes`)).toBe(0);
    await last.close();
    await publisher?.close();
  });
});

async function pollUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await pause(100);
  }
}
