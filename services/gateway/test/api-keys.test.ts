// ApiKeys against real Redis and a stub of management's key lookup: a key the cache lacks is asked of
// management only after the caller's gate (the failed-authentication budget) resolves; a cached key
// does not wait for it.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { apiKeyCacheKey } from "@kurz/contracts";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../src/api-keys.ts";
import { keyRecord } from "./key-record.ts";

const prefix = uniquePrefix("gw-keys");
const record = keyRecord();
const key = (c: string) => `kurz_live_${c.repeat(32)}`;
const hashOf = (k: string) => createHash("sha256").update(k).digest("hex");

let redis: Redis;
let server: Server;
let asked = 0;
let keys: ApiKeys;

beforeAll(async () => {
  await ensureRedis();
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  server = createServer((_req, res) => {
    asked++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(record));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  keys = new ApiKeys(redis, {
    managementUrl: `http://127.0.0.1:${port}`,
    internalSecret: "s",
    ttlSeconds: 60,
  });
});
afterAll(async () => {
  server?.close();
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

describe("ApiKeys.authenticate with a gate before management", () => {
  it("asks management nothing for an uncached key while the gate refuses, and throws the gate's error", async () => {
    const refused = new Error("budget spent");
    const gate = Promise.reject(refused);
    gate.catch(() => {});
    await expect(keys.authenticate(`Bearer ${key("A")}`, Date.now(), gate)).rejects.toBe(refused);
    expect(asked).toBe(0);
    expect(await redis.get(apiKeyCacheKey(hashOf(key("A"))))).toBeNull();
  });

  it("asks management once the gate resolves, and caches the answer", async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const pending = keys.authenticate(`Bearer ${key("B")}`, Date.now(), gate);
    // A sleep: that nothing asks management before the gate opens can only be watched for a while.
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(0);
    open();
    expect(await pending).toEqual(record);
    expect(asked).toBe(1);
    expect(await redis.get(apiKeyCacheKey(hashOf(key("B"))))).toBe(JSON.stringify(record));
  });

  it("answers a cached key without waiting for the gate", async () => {
    const never = new Promise<void>(() => {});
    expect(await keys.authenticate(`Bearer ${key("B")}`, Date.now(), never)).toEqual(record);
    expect(asked).toBe(1);
  });
});
