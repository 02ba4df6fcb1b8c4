// RedirectRecords.put against a real Redis (decision 0044: one script instead of a MULTI): under the
// client's key prefix it writes the record, drops the code's shared miss entry and tells the redirects
// on the unprefixed channel, all in one step; it loads the script when Redis does not know it (a
// restarted or flushed Redis); and a Redis that cannot be reached is a warning, never a failed create.
// The puts of one turn share one script call and one message (decision 0052). Writes that arrive out
// of order leave the newest version, and none brings a deleted link back (decision 0052).
import { randomUUID } from "node:crypto";
import { INVALIDATION_CHANNEL, invalidationEntries, redirectKey, redirectMissKey } from "@kurz/contracts";
import type { Link } from "@kurz/db";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedirectRecords, toRedirectRecord } from "../src/projections/link-records.ts";
import { TOMBSTONE_TTL_SECONDS } from "../src/projections/versioned-writes.ts";
import { linkRow } from "./link-row.ts";

const prefix = `${uniquePrefix("redirect-records")}:`;
let redis: Redis;
let admin: Redis;
let subscriber: Redis;
const heard: string[] = [];
const warnings: string[] = [];
let records: RedirectRecords;

const link = (code: string): Link =>
  linkRow({
    id: randomUUID(),
    accountId: randomUUID(),
    shortCode: code,
    originalUrl: "https://example.com/page",
    title: "t",
    expiresAt: new Date("2031-01-01T00:00:00.000Z"),
    createdAt: new Date(),
  });

beforeAll(async () => {
  redis = new Redis(testRedisUrl(), { keyPrefix: prefix });
  admin = new Redis(testRedisUrl());
  subscriber = new Redis(testRedisUrl());
  await subscriber.subscribe(INVALIDATION_CHANNEL);
  subscriber.on("message", (_channel: string, message: string) => heard.push(message));
  records = new RedirectRecords(redis, { warn: (_o, m) => warnings.push(m ?? "") });
});

afterAll(async () => {
  subscriber?.disconnect();
  redis?.disconnect();
  admin?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

describe("RedirectRecords.put", () => {
  it("writes the record, drops the miss entry and publishes the code, under the client's prefix", async () => {
    const code = `rr${randomUUID().slice(0, 8)}`;
    await admin.set(`${prefix}${redirectMissKey(code)}`, "1");
    const written = link(code);
    await records.put(written);
    expect(JSON.parse((await admin.get(`${prefix}${redirectKey(code)}`))!)).toEqual(
      toRedirectRecord(written),
    );
    expect(await admin.exists(`${prefix}${redirectMissKey(code)}`)).toBe(0);
    await waitFor(async () => heard.includes(code));
    expect(warnings).toEqual([]);
  });

  it("only warns when Redis cannot be reached", async () => {
    const down = new Redis("redis://127.0.0.1:9", {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    });
    down.on("error", () => {});
    const failing = new RedirectRecords(down, { warn: (_o, m) => warnings.push(m ?? "") });
    await expect(failing.put(link("rrdown"))).resolves.toBeUndefined();
    expect(warnings).toEqual(["redirect record writes failed; the miss path will heal them"]);
    down.disconnect();
  });

  // Each call publishes once (PUT_SCRIPT), so the messages that name these codes count the calls.
  const messagesNaming = (codes: readonly string[]) =>
    heard.map(invalidationEntries).filter((entries) => entries.some((e) => codes.includes(e)));

  it("sends the puts of one turn as one call with one message naming every code, in order", async () => {
    const codes = Array.from({ length: 5 }, (_, i) => `rt${i}${randomUUID().slice(0, 8)}`);
    for (const code of codes) await admin.set(`${prefix}${redirectMissKey(code)}`, "1");
    const written = codes.map(link);
    await Promise.all(written.map((l) => records.put(l)));
    for (const l of written) {
      expect(JSON.parse((await admin.get(`${prefix}${redirectKey(l.shortCode)}`))!)).toEqual(
        toRedirectRecord(l),
      );
      expect(await admin.exists(`${prefix}${redirectMissKey(l.shortCode)}`)).toBe(0);
    }
    await waitFor(async () => messagesNaming(codes).length > 0);
    expect(messagesNaming(codes)).toEqual([codes]);
  });

  it("splits a large batch into calls of at most 100 records, each announced", async () => {
    const codes = Array.from({ length: 150 }, (_, i) => `rm${i}${randomUUID().slice(0, 6)}`);
    await Promise.all(codes.map((code) => records.put(link(code))));
    expect(await admin.exists(...codes.map((code) => `${prefix}${redirectKey(code)}`))).toBe(150);
    await waitFor(async () => messagesNaming(codes).flat().length === 150);
    expect(messagesNaming(codes)).toEqual([codes.slice(0, 100), codes.slice(100)]);
  });

  it("leaves a put of a later turn to a call of its own", async () => {
    const codes = [`rl${randomUUID().slice(0, 8)}`, `rl${randomUUID().slice(0, 8)}`];
    await records.put(link(codes[0]!));
    await records.put(link(codes[1]!));
    await waitFor(async () => messagesNaming(codes).length === 2);
    expect(messagesNaming(codes)).toEqual([[codes[0]], [codes[1]]]);
  });

  it("replaces many records by tombstones in one call, announced in one message naming each code", async () => {
    const removed = Array.from({ length: 3 }, (_, i) => link(`rx${i}${randomUUID().slice(0, 8)}`));
    const codes = removed.map((l) => l.shortCode);
    await records.putMany(removed);
    await records.removeMany(removed);
    for (const l of removed) {
      const key = `${prefix}${redirectKey(l.shortCode)}`;
      expect(JSON.parse((await admin.get(key))!)).toEqual({
        id: l.id,
        deleted: true,
        c: l.createdAt.getTime(),
      });
      const ttl = await admin.ttl(key);
      expect(ttl).toBeGreaterThan(TOMBSTONE_TTL_SECONDS - 60);
      expect(ttl).toBeLessThanOrEqual(TOMBSTONE_TTL_SECONDS);
    }
    await waitFor(async () => messagesNaming(codes).length === 2);
    expect(messagesNaming(codes)).toEqual([codes, codes]);
  });
});

// Writes reach Redis after their commits, in either order (decision 0052): the highest version stays,
// and a deleted link's write that arrives after its delete is refused.
describe("RedirectRecords: writes that arrive out of order", () => {
  const held = async (code: string) => JSON.parse((await admin.get(`${prefix}${redirectKey(code)}`))!);
  const edited = (l: Link, version: bigint, originalUrl: string): Link => ({ ...l, version, originalUrl });

  it("keeps the higher version when an older write arrives after a newer one", async () => {
    const first = link(`ro${randomUUID().slice(0, 8)}`);
    const newer = edited(first, 3n, "https://example.com/newer");
    await records.put(newer);
    await records.put(edited(first, 2n, "https://example.com/older"));
    expect(await held(first.shortCode)).toEqual(toRedirectRecord(newer));
    // The same version again (an edit of a column the record does not hold) is written.
    const retitled = { ...newer, title: "retitled" };
    await records.put(retitled);
    expect(await held(first.shortCode)).toEqual(toRedirectRecord(retitled));
    await records.put(edited(first, 4n, "https://example.com/newest"));
    expect((await held(first.shortCode)).url).toBe("https://example.com/newest");
  });

  it("refuses any write of a deleted link, whatever its version, and keeps the miss entry", async () => {
    const gone = link(`rd${randomUUID().slice(0, 8)}`);
    await records.put(gone);
    await records.removeMany([gone]);
    await admin.set(`${prefix}${redirectMissKey(gone.shortCode)}`, "1");
    await records.put(gone); // e.g. the miss path's read, made before the delete committed
    await records.putMany([edited(gone, 9n, "https://example.com/late-edit")]);
    expect(await held(gone.shortCode)).toEqual({ id: gone.id, deleted: true, c: gone.createdAt.getTime() });
    expect(await admin.exists(`${prefix}${redirectMissKey(gone.shortCode)}`)).toBe(1);
  });

  it("writes another link over a tombstone (the code used again), and over a value that is not JSON", async () => {
    const gone = link(`ra${randomUUID().slice(0, 8)}`);
    await records.put(gone);
    await records.removeMany([gone]);
    const again = link(gone.shortCode);
    await records.put(again);
    expect(await held(gone.shortCode)).toEqual(toRedirectRecord(again));
    expect(await admin.ttl(`${prefix}${redirectKey(gone.shortCode)}`)).toBe(-1);

    const garbled = link(`rg${randomUUID().slice(0, 8)}`);
    await admin.set(`${prefix}${redirectKey(garbled.shortCode)}`, "not json");
    await records.put(garbled);
    expect(await held(garbled.shortCode)).toEqual(toRedirectRecord(garbled));
  });

  it("refuses a late write of a deleted link over the link that took its code since", async () => {
    const code = `rc${randomUUID().slice(0, 8)}`;
    const gone = { ...link(code), createdAt: new Date("2026-11-01T00:00:00.000Z") };
    await records.put(gone);
    await records.removeMany([gone]);
    const again = { ...link(code), createdAt: new Date("2026-11-02T00:00:00.000Z") };
    await records.put(again);
    await records.put(gone); // read before the delete, held back (a Redis outage) past the new create
    expect(await held(code)).toEqual(toRedirectRecord(again));
    // Nor over the new link's tombstone, once that one is deleted too.
    await records.removeMany([again]);
    await records.put(gone);
    expect(await held(code)).toEqual({ id: again.id, deleted: true, c: again.createdAt.getTime() });
  });

  it("reads a record written before versions as version 0 and created at 0", async () => {
    const old = link(`rv${randomUUID().slice(0, 8)}`);
    const { v: _v, c: _c, ...unversioned } = toRedirectRecord(old);
    await admin.set(`${prefix}${redirectKey(old.shortCode)}`, JSON.stringify(unversioned));
    await records.put(old);
    expect(await held(old.shortCode)).toEqual(toRedirectRecord(old));
    // Another link's record from before `c`: the link now holding the code writes over it.
    await admin.set(`${prefix}${redirectKey(old.shortCode)}`, JSON.stringify(unversioned));
    const successor = link(old.shortCode);
    await records.put(successor);
    expect(await held(old.shortCode)).toEqual(toRedirectRecord(successor));
  });
});
