// Branded domains', rotators' and overlays' records in Redis (decision 0051): a removal leaves a
// tombstone for a day, and the miss path's healing write only fills an empty key, so a read made just
// before a removal (or an edit), written just after it, cannot undo it; a deleted row's tombstone also
// refuses the API's own late writes of that row, and nothing else. Against a real Redis.
import { domainKey, isRecordTombstone, overlayKey, type RotatorRecord, rotatorKey } from "@kurz/contracts";
import type { Domain, Overlay } from "@kurz/db";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LegacyRecords } from "../src/legacy-records.ts";
import { OverlayRecords } from "../src/overlay-records.ts";
import { TOMBSTONE_TTL_SECONDS } from "../src/record-tombstones.ts";

const prefix = `${uniquePrefix("tombstones")}:`;
let redis: Redis;
let legacy: LegacyRecords;
let overlays: OverlayRecords;
let seq = 0;

beforeAll(() => {
  redis = new Redis(testRedisUrl(), { keyPrefix: prefix });
  legacy = new LegacyRecords(redis, { warn: () => {} });
  overlays = new OverlayRecords(redis, { warn: () => {} });
});

afterAll(async () => {
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const domain = (redirectRoot: string | null): Domain => ({
  id: ++seq,
  accountId: "0190a1b2-0000-7000-8000-0000000000d1",
  host: `t${seq}-${Date.now()}.brand.test`,
  origin: "https://brand.test",
  redirectRoot,
  redirect404: null,
  verificationToken: "token",
  status: "verified",
  verifiedAt: new Date(),
  lastCheckedAt: null,
  createdAt: new Date(),
});

const overlay = (text: string): Overlay => ({
  id: 1_000_000 + ++seq,
  accountId: "0190a1b2-0000-7000-8000-0000000000d1",
  type: "message",
  name: "o",
  text,
  buttonLabel: null,
  buttonUrl: null,
  fields: [],
  bgColor: "#FFFFFF",
  textColor: "#111111",
  buttonColor: "#2563EB",
  position: "bottom",
  createdAt: new Date(),
  updatedAt: new Date(),
});

const rotator = (codes: string[]): RotatorRecord => ({
  campaign_id: ++seq,
  account_id: "0190a1b2-0000-7000-8000-0000000000d1",
  links: codes.map((c, i) => ({ id: `0190a1b2-0000-7000-8000-00000000000${i}`, short_code: c })),
});

/** What the key holds: a record, "tombstone", or null (nothing). */
const held = async (key: string) => {
  const raw = await redis.get(key);
  if (raw === null) return null;
  const value: unknown = JSON.parse(raw);
  return isRecordTombstone(value) ? "tombstone" : value;
};

describe("a removal's tombstone", () => {
  it("refuses the miss path's heal of a domain read before the delete, for a day", async () => {
    const d = domain("https://example.com/root");
    await legacy.putDomain(d.host, d);
    await legacy.removeDomain(d.host);
    await legacy.healDomain(d);
    expect(await held(domainKey(d.host))).toBe("tombstone");
    expect(await redis.ttl(domainKey(d.host))).toBeGreaterThan(TOMBSTONE_TTL_SECONDS - 60);
    // Added again (verified anew): the API's write replaces the tombstone.
    await legacy.putDomain(d.host, d);
    expect(await held(domainKey(d.host))).toMatchObject({
      id: d.id,
      redirect_root: "https://example.com/root",
    });
    expect(await redis.ttl(domainKey(d.host))).toBe(-1);
  });

  it("refuses the heal of a rotator and of an overlay read before their removal", async () => {
    const slug = `spring-${++seq}`;
    const r = rotator(["a1", "b2"]);
    await legacy.putRotator(slug, r);
    await legacy.removeRotator(slug);
    await legacy.healRotator(slug, r);
    expect(await held(rotatorKey(slug))).toBe("tombstone");

    const o = overlay("hello");
    await overlays.put(o);
    await overlays.remove(o.id);
    await overlays.heal(o);
    expect(await held(overlayKey(o.id))).toBe("tombstone");
  });
});

describe("a deleted row's tombstone", () => {
  it("refuses an edit of the deleted domain written after the delete, not a domain added again", async () => {
    const d = domain("https://example.com/root");
    await legacy.putDomain(d.host, d);
    await legacy.removeDomain(d.host, d.id);
    await legacy.putDomain(d.host, { ...d, redirectRoot: "https://example.com/edited-before-the-delete" });
    expect(await held(domainKey(d.host))).toBe("tombstone");
    const again = { ...domain(null), host: d.host };
    await legacy.putDomain(again.host, again);
    expect(await held(domainKey(d.host))).toMatchObject({ id: again.id });
  });

  it("lets a domain that only stopped serving (no longer verified) serve again when verified", async () => {
    const d = domain(null);
    await legacy.putDomain(d.host, { ...d, status: "pending" }); // a failed check removes it
    expect(await held(domainKey(d.host))).toBe("tombstone");
    await legacy.putDomain(d.host, d);
    expect(await held(domainKey(d.host))).toMatchObject({ id: d.id });
  });

  it("refuses a deleted campaign's rotator, not another campaign's or a slug given back", async () => {
    const slug = `autumn-${++seq}`;
    const r = rotator(["a1"]);
    await legacy.putRotator(slug, r);
    await legacy.removeRotator(slug, r.campaign_id);
    await legacy.putRotator(slug, r); // a sync that read the campaign before its delete
    expect(await held(rotatorKey(slug))).toBe("tombstone");
    const other = rotator(["b2"]);
    await legacy.putRotator(slug, other);
    expect(await held(rotatorKey(slug))).toMatchObject({ campaign_id: other.campaign_id });

    // A slug given up (no id in its tombstone) and taken back by the same campaign.
    const moved = `moved-${++seq}`;
    await legacy.putRotator(moved, other);
    await legacy.removeRotator(moved);
    await legacy.putRotator(moved, other);
    expect(await held(rotatorKey(moved))).toMatchObject({ campaign_id: other.campaign_id });
  });

  it("refuses an edit of a deleted overlay written after the delete", async () => {
    const o = overlay("before");
    await overlays.put(o);
    await overlays.remove(o.id);
    await overlays.put({ ...o, text: "edited before the delete" });
    expect(await held(overlayKey(o.id))).toBe("tombstone");
  });
});

describe("the miss path's heal", () => {
  it("fills an empty key, and never writes over an edit made after its read", async () => {
    const d = domain(null);
    await legacy.healDomain(d);
    expect(await held(domainKey(d.host))).toMatchObject({ id: d.id, redirect_root: null });
    await legacy.putDomain(d.host, { ...d, redirectRoot: "https://example.com/edited" });
    await legacy.healDomain(d);
    expect(await held(domainKey(d.host))).toMatchObject({ redirect_root: "https://example.com/edited" });

    const o = overlay("first");
    await overlays.heal(o);
    await overlays.put({ ...o, text: "edited" });
    await overlays.heal(o);
    expect(await held(overlayKey(o.id))).toMatchObject({ text: "edited" });
  });

  it("writes nothing for a domain that is not verified", async () => {
    const d = { ...domain(null), status: "pending" };
    await legacy.healDomain(d);
    expect(await held(domainKey(d.host))).toBeNull();
  });
});
