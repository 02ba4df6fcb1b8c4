// The Redis-backed fixed-window limiter against a real Redis, and the choice of reported window.
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter, reportedWindow, type Window } from "../src/rate-limit.ts";

const prefix = uniquePrefix("gw-ratelimit");
let redis: Redis;

beforeAll(async () => {
  await ensureRedis();
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
});
afterAll(async () => {
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const windows: Window[] = [
  { name: "1m", seconds: 60, limit: 3 },
  { name: "1h", seconds: 3600, limit: 5 },
];
// A fixed instant in the middle of a minute, so the windows do not roll over during the test.
const NOW = Date.UTC(2030, 0, 1, 10, 20, 30);

describe("RateLimiter", () => {
  it("counts each request in every window and reports when each resets", async () => {
    const limiter = new RateLimiter(redis);
    const first = await limiter.hit("a", windows, NOW);
    expect(first.map((s) => [s.name, s.count, s.remaining])).toEqual([
      ["1m", 1, 2],
      ["1h", 1, 4],
    ]);
    expect(first[0]!.resetAt).toBe(Date.UTC(2030, 0, 1, 10, 21, 0) / 1000);
    expect(first[1]!.resetAt).toBe(Date.UTC(2030, 0, 1, 11, 0, 0) / 1000);
  });

  it("counts subjects separately and is exact under concurrency", async () => {
    const limiter = new RateLimiter(redis);
    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.hit("b", windows, NOW)));
    expect(results.map((r) => r[0]!.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    expect((await limiter.hit("c", windows, NOW))[0]!.count).toBe(1);
  });

  it("starts a fresh count in the next window", async () => {
    const limiter = new RateLimiter(redis);
    await limiter.hit("d", windows, NOW);
    const next = await limiter.hit("d", windows, NOW + 60_000);
    expect(next[0]!.count).toBe(1);
    expect(next[1]!.count).toBe(2);
  });

  it("lets its counters expire after their window", async () => {
    const limiter = new RateLimiter(redis);
    await limiter.hit("e", windows, NOW);
    const sec = NOW / 1000;
    for (const w of windows) {
      const ttl = await redis.ttl(`rl:e:${w.name}:${Math.floor(sec / w.seconds)}`);
      expect(ttl).toBeGreaterThan(w.seconds - 5);
      expect(ttl).toBeLessThanOrEqual(w.seconds + 5);
    }
  });
});

describe("reportedWindow", () => {
  const state = (name: string, limit: number, count: number, resetAt: number) => ({
    name,
    seconds: name === "1m" ? 60 : 3600,
    limit,
    count,
    remaining: Math.max(0, limit - count),
    resetAt,
  });

  it("reports the window with the fewest requests left while none is exceeded", () => {
    expect(reportedWindow([state("1m", 60, 10, 100), state("1h", 1000, 995, 3600)]).state.name).toBe("1h");
    expect(reportedWindow([state("1m", 60, 59, 100), state("1h", 1000, 100, 3600)]).state.name).toBe("1m");
  });

  it("reports an exceeded window, the one that resets last when both are", () => {
    const minute = reportedWindow([state("1m", 3, 4, 100), state("1h", 1000, 4, 3600)]);
    expect(minute).toMatchObject({ exceeded: true, state: { name: "1m", remaining: 0 } });
    const both = reportedWindow([state("1m", 3, 4, 100), state("1h", 4, 5, 3600)]);
    expect(both).toMatchObject({ exceeded: true, state: { name: "1h" } });
    const bothFirst = reportedWindow([state("1h", 4, 5, 3600), state("1m", 3, 4, 100)]);
    expect(bothFirst).toMatchObject({ exceeded: true, state: { name: "1h" } });
  });

  it("reports the first of windows that tie", () => {
    const fewest = reportedWindow([state("a", 10, 5, 100), state("b", 20, 15, 3600)]);
    expect(fewest).toMatchObject({ exceeded: false, state: { name: "a" } });
    const resetTogether = reportedWindow([state("a", 1, 2, 100), state("b", 1, 3, 100)]);
    expect(resetTogether).toMatchObject({ exceeded: true, state: { name: "a" } });
  });
});
