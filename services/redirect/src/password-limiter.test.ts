// The two password budgets against a real Redis: per link and client (IPv6 by /64), and per link for
// all clients together.
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PasswordLimiter } from "./password-limiter.ts";

const prefix = uniquePrefix("pwlimit");
let redis: Redis;
let limiter: PasswordLimiter;

beforeAll(() => {
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  limiter = new PasswordLimiter(redis, { perClient: 3, perLink: 10, windowSeconds: 60 });
});

afterAll(async () => {
  redis.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const allowed = async (code: string, ip: string) => (await limiter.attempt(code, ip)).allowed;

describe("PasswordLimiter", () => {
  it("allows a client its attempts per link, then refuses with the window's Retry-After", async () => {
    for (let i = 0; i < 3; i++) expect(await allowed("one-client", "203.0.113.1")).toBe(true);
    const refused = await limiter.attempt("one-client", "203.0.113.1");
    expect(refused).toEqual({ allowed: false, retryAfter: expect.any(Number) });
    expect(refused.retryAfter).toBeGreaterThan(0);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    expect(await allowed("one-client", "203.0.113.2")).toBe(true);
    expect(await allowed("another-link", "203.0.113.1")).toBe(true);
  });

  it("counts every address of one IPv6 /64 as one client", async () => {
    for (let i = 1; i <= 3; i++) expect(await allowed("v6-link", `2001:db8:5:6::${i}`)).toBe(true);
    expect(await allowed("v6-link", "2001:db8:5:6:ffff::1")).toBe(false);
    expect(await allowed("v6-link", "2001:db8:5:7::1")).toBe(true);
  });

  it("stops a guesser spread over many addresses at the link's budget, for everyone", async () => {
    for (let i = 1; i <= 10; i++) expect(await allowed("spread", `198.51.100.${i}`)).toBe(true);
    expect(await allowed("spread", "198.51.100.200")).toBe(false);
    expect(await allowed("spread", "2001:db8::1")).toBe(false);
    expect(await allowed("not-spread", "198.51.100.200")).toBe(true);
  });

  it("does not spend the link's budget on right passwords, and lets their client start over", async () => {
    for (let round = 0; round < 12; round++) {
      expect(await allowed("owner-link", "192.0.2.1")).toBe(true);
      await limiter.succeeded("owner-link", "192.0.2.1");
    }
    expect(Number(await redis.get("pwlimit:owner-link"))).toBe(0);
  });
});
