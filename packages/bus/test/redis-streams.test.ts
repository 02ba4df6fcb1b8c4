import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
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

  it("dead-letters an entry redelivered past maxAttempts without calling the handler (crash loop)", async () => {
    const bus = makeBus();
    const stream = topicName(prefix, "crashloop");
    await admin.call("XGROUP", "CREATE", stream, "g", "0", "MKSTREAM");
    await bus.publish("crashloop", [{ key: "killer", value: { boom: true } }]);
    // Consumers that fetched the entry and died without acknowledging it, three times over.
    const read = (await admin.call("XREADGROUP", "GROUP", "g", "ghost", "STREAMS", stream, ">")) as [
      string,
      [string, string[]][],
    ][];
    const id = read[0]![1][0]![0];
    for (let i = 0; i < 3; i++) await admin.call("XCLAIM", stream, "g", `ghost-${i}`, 0, id);

    const handled: IncomingMessage[] = [];
    const dead: IncomingMessage[] = [];
    await bus.subscribe({
      topic: "crashloop",
      group: "g",
      maxAttempts: 3,
      handler: async (b) => void handled.push(...b),
    });
    await bus.subscribe({ topic: "crashloop.dlq", group: "g", handler: async (b) => void dead.push(...b) });
    await waitFor("dead letter", () => dead.length >= 1);
    expect(handled).toEqual([]);
    expect(dead[0]!.headers[DEAD_LETTER_HEADERS.error]).toMatch(/without being acknowledged/);
    expect(dead[0]!.headers[DEAD_LETTER_HEADERS.attempts]).toBe("4");
    await bus.close();
  });
});

async function pollUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await pause(100);
  }
}
