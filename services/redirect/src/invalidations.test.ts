// Pub/sub invalidation against a real Redis, including the reconnection that may have lost messages.
import { INVALIDATION_CHANNEL, invalidationMessages, redirectKey } from "@kurz/contracts";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redirectRecord } from "../test/support/records.ts";
import { followInvalidations } from "./invalidations.ts";
import { Resolver } from "./resolver.ts";

const prefix = uniquePrefix("invalidations");
let redis: Redis;
let admin: Redis;
let subscriber: Redis;
let resolver: Resolver;
const warnings: string[] = [];

beforeAll(async () => {
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  admin = new Redis(testRedisUrl());
  subscriber = new Redis(testRedisUrl(), { connectionName: `${prefix}-subscriber` });
  subscriber.on("error", () => {});
  resolver = new Resolver({
    redis,
    managementUrl: "http://127.0.0.1:9",
    internalToken: "unused",
    maxEntries: 100,
    ttlMs: 600_000,
  });
  followInvalidations(subscriber, resolver, { warn: (_o, m) => warnings.push(m ?? "") });
  await waitFor(async () => (await admin.pubsub("NUMSUB", INVALIDATION_CHANNEL))[1] !== 0);
});

afterAll(async () => {
  subscriber.disconnect();
  redis.disconnect();
  admin.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const record = (url: string) => redirectRecord(url, { id: "0190a1b2-0000-7000-8000-0000000000d1" });

const cache = async (code: string, url: string) => {
  await redis.set(redirectKey(code), JSON.stringify(record(url)));
  await resolver.links.resolve(code);
  expect(resolver.links.peek(code)?.url).toBe(url);
};

it("drops a code when management announces it", async () => {
  await cache(`${prefix}-a`, "https://example.com/a");
  await admin.publish(INVALIDATION_CHANNEL, `${prefix}-a`);
  await waitFor(() => resolver.links.peek(`${prefix}-a`) === undefined);
});

it("drops every entry a message names (the creates that finished together, decision 0052)", async () => {
  await cache(`${prefix}-m1`, "https://example.com/m1");
  await cache(`${prefix}-m2`, "https://example.com/m2");
  await cache(`${prefix}-m3`, "https://example.com/m3");
  await admin.publish(INVALIDATION_CHANNEL, invalidationMessages([`${prefix}-m1`, `${prefix}-m3`]));
  await waitFor(
    () =>
      resolver.links.peek(`${prefix}-m1`) === undefined && resolver.links.peek(`${prefix}-m3`) === undefined,
  );
  expect(resolver.links.peek(`${prefix}-m2`)?.url).toBe("https://example.com/m2");
});

it("drops every cache after the subscriber reconnects, since messages may have been lost", async () => {
  await cache(`${prefix}-b`, "https://example.com/b");
  // Cut the subscriber's connection from the server side, as a Redis restart or a network cut would.
  const clients = await admin.client("LIST");
  const id = /id=(\d+) .*name=([^ ]*)/g;
  const mine = [...String(clients).matchAll(id)].find((m) => m[2] === `${prefix}-subscriber`)?.[1];
  expect(mine).toBeDefined();
  await admin.client("KILL", "ID", mine!);
  await waitFor(() => resolver.links.peek(`${prefix}-b`) === undefined, { timeoutMs: 10_000 });
  expect(warnings).toContain("invalidation channel reconnected; in-process caches dropped");
  // Still subscribed after the reconnection.
  await cache(`${prefix}-c`, "https://example.com/c");
  await admin.publish(INVALIDATION_CHANNEL, `${prefix}-c`);
  await waitFor(() => resolver.links.peek(`${prefix}-c`) === undefined, { timeoutMs: 10_000 });
});
