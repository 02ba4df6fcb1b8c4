import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix } from "../src/index.ts";

const url = testRedisUrl();
const prefix = uniquePrefix("testing-redis");
let redis: Redis;

beforeAll(async () => {
  await ensureRedis(url);
  redis = new Redis(url);
});

afterAll(async () => {
  await cleanupRedisPrefix(url, prefix);
  redis.disconnect();
});

describe("uniquePrefix", () => {
  it("is short, distinct per call and safe for Kafka topic names", () => {
    const seen = new Set(Array.from({ length: 200 }, () => uniquePrefix("Links API!")));
    expect(seen.size).toBe(200);
    for (const p of seen) {
      expect(p).toMatch(/^links-api-[0-9a-f]{10}$/);
    }
  });
});

describe("cleanupRedisPrefix", () => {
  it("deletes every key with the prefix, of any type, and nothing else", async () => {
    const mine = `${prefix}:a`;
    const other = `${uniquePrefix("testing-redis-other")}:keep`;
    const pipeline = redis.pipeline();
    // More keys than one SCAN page, to exercise the cursor loop.
    for (let i = 0; i < 1200; i++) pipeline.set(`${mine}:${i}`, "x");
    pipeline.xadd(`${mine}:stream`, "*", "f", "v");
    pipeline.hset(`${mine}:hash`, "f", "v");
    pipeline.set(other, "keep");
    await pipeline.exec();

    const deleted = await cleanupRedisPrefix(url, mine);

    expect(deleted).toBe(1202);
    const [, leftover] = await redis.scan("0", "MATCH", `${mine}*`, "COUNT", 10_000);
    expect(leftover).toEqual([]);
    expect(await redis.get(other)).toBe("keep");
    await redis.del(other);
  });

  it("treats glob characters in the prefix literally", async () => {
    const literal = `${prefix}:[x]*`;
    await redis.set(`${literal}1`, "1");
    await redis.set(`${prefix}:x-lookalike`, "1");
    expect(await cleanupRedisPrefix(url, literal)).toBe(1);
    expect(await redis.exists(`${prefix}:x-lookalike`)).toBe(1);
  });

  it("refuses an empty prefix", async () => {
    await expect(cleanupRedisPrefix(url, "")).rejects.toThrow(/empty prefix/);
  });
});

describe("ensureRedis", () => {
  it("fails with a clear message when nothing listens", async () => {
    await expect(ensureRedis("redis://127.0.0.1:1")).rejects.toThrow(
      /Redis is not reachable at redis:\/\/127\.0\.0\.1:1/,
    );
  });
});
