// The lookup cache against a real Redis: expiry refreshes in the background instead of stalling a
// request, a stale record keeps serving while neither Redis nor management can answer, and a deleted
// link's tombstone is no link.
import { type LinkRule, redirectKey } from "@kurz/contracts";
import { compileSmartLink, decide } from "@kurz/link-rules";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redirectRecord } from "../test/support/records.ts";
import { Resolver } from "./resolver.ts";

const prefix = uniquePrefix("resolver");
let redis: Redis;

beforeAll(() => {
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
});

afterAll(async () => {
  redis.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const record = (url: string) => redirectRecord(url, { id: "0190a1b2-0000-7000-8000-0000000000c1" });

/** The cache's own clock is the thing under test here: an entry goes stale once its TTL has passed. */
const ttlPassed = (ms: number) => new Promise((res) => setTimeout(res, ms));

const resolver = (ttlMs: number) =>
  new Resolver({
    redis,
    // Nothing listens on port 9: management is unavailable throughout.
    managementUrl: "http://127.0.0.1:9",
    internalToken: "unused",
    maxEntries: 100,
    ttlMs,
  });

it("serves an expired entry once while it reloads in the background, then the new record", async () => {
  const r = resolver(100);
  await redis.set(redirectKey("swr"), JSON.stringify(record("https://example.com/v1")));
  expect(r.links.peek("swr")).toBeUndefined();
  expect((await r.links.resolve("swr"))?.url).toBe("https://example.com/v1");
  await redis.set(redirectKey("swr"), JSON.stringify(record("https://example.com/v2")));
  expect(r.links.peek("swr")?.url).toBe("https://example.com/v1"); // fresh: no reload yet
  await ttlPassed(150);
  expect(r.links.peek("swr")?.url).toBe("https://example.com/v1"); // stale: served, reload started
  await waitFor(() => r.links.peek("swr")?.url === "https://example.com/v2", { timeoutMs: 2_000 });
});

it("keeps serving a stale record while neither Redis nor management answers", async () => {
  const down = new Redis(testRedisUrl(), { lazyConnect: true, enableOfflineQueue: false });
  const r = new Resolver({
    redis: down, // never connected: every command fails at once
    managementUrl: "http://127.0.0.1:9",
    internalToken: "unused",
    maxEntries: 100,
    ttlMs: 50,
  });
  // Seed through a connected resolver's path: the record must come from somewhere once.
  const up = resolver(50);
  await redis.set(redirectKey("outage"), JSON.stringify(record("https://example.com/kept")));
  const loaded = await up.links.resolve("outage");
  expect(loaded?.url).toBe("https://example.com/kept");
  await expect(r.links.resolve("outage")).rejects.toThrow(/unavailable/);

  await ttlPassed(80);
  await redis.del(redirectKey("outage"));
  // `up` now sees a stale entry and cannot reload it (Redis has no record, management is down):
  // the record stays served, the failed reload is not cached.
  expect(up.links.peek("outage")?.url).toBe("https://example.com/kept");
  // The reload that peek started: joined here, it fails as neither source answers.
  await expect(up.links.resolve("outage")).rejects.toThrow(/unavailable/);
  expect(up.links.peek("outage")?.url).toBe("https://example.com/kept");
  down.disconnect();
});

it("reads a deleted link's tombstone as no link, without asking management (decision 0052)", async () => {
  const r = resolver(100);
  const tombstone = JSON.stringify({ id: "0190a1b2-0000-7000-8000-0000000000c1", deleted: true });
  await redis.set(redirectKey("gone"), tombstone);
  // Management is unreachable here: had the lookup gone on to it, this would reject as unavailable.
  await expect(r.links.resolve("gone")).resolves.toBeNull();
  expect(r.links.peek("gone")).toBeNull();

  // A link deleted while cached: its expired entry reloads to the tombstone and stops being served.
  await redis.set(redirectKey("deleted-later"), JSON.stringify(record("https://example.com/was")));
  expect((await r.links.resolve("deleted-later"))?.url).toBe("https://example.com/was");
  await redis.set(redirectKey("deleted-later"), tombstone);
  await ttlPassed(150);
  r.links.peek("deleted-later"); // stale: served once more while it reloads
  await waitFor(() => r.links.peek("deleted-later") === null, { timeoutMs: 2_000 });
});

it("decides a changed smart link by its new rules once it is invalidated", async () => {
  const r = resolver(60_000);
  const visitor = {
    device: "desktop",
    os: "windows",
    browser: "chrome",
    country: "DE",
    language: "de-at",
    query: "",
    now: 0,
    key: 1,
  } as const;
  const smart = (rules: LinkRule[]) => ({
    ...record("https://example.com/"),
    s: compileSmartLink({ rules }, { imageUrl: (id) => id }),
  });
  await redis.set(
    redirectKey("smart-changed"),
    JSON.stringify(smart([{ when: { country: ["FR"] }, url: "https://example.fr/" }])),
  );
  const before = (await r.links.resolve("smart-changed"))!;
  expect(decide(before.url, before.s, visitor).destination).toBe("default");
  await redis.set(
    redirectKey("smart-changed"),
    JSON.stringify(
      smart([
        { when: { country: ["FR"] }, url: "https://example.fr/" },
        { when: { country: ["AT", "DE"], language: ["de"] }, url: "https://example.de/" },
      ]),
    ),
  );
  r.invalidate("smart-changed");
  const after = (await r.links.resolve("smart-changed"))!;
  expect(decide(after.url, after.s, visitor)).toMatchObject({
    url: "https://example.de/",
    destination: "rule:2",
  });
});

it("does not cache a load its own link's invalidation overtook, and caches one another link's did not", async () => {
  const r = resolver(600_000);
  await redis.set(redirectKey("raced"), JSON.stringify(record("https://example.com/old")));
  await redis.set(redirectKey("bystander"), JSON.stringify(record("https://example.com/b")));
  // Both loads have started (they read Redis next); the invalidations land before they finish.
  const raced = r.links.resolve("raced");
  const bystander = r.links.resolve("bystander");
  r.links.invalidate("raced");
  r.links.invalidate("someone-else");
  expect((await raced)?.url).toBe("https://example.com/old");
  expect((await bystander)?.url).toBe("https://example.com/b");
  // The raced load may have read the record from before the edit: the next request reads it again.
  expect(r.links.peek("raced")).toBeUndefined();
  expect(r.links.peek("bystander")?.url).toBe("https://example.com/b");
});
