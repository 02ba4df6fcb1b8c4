// Branded domains', rotators' and overlays' records in Redis. Management writes them after its commit,
// so two writes can reach Redis out of their order: each carries a version and Redis keeps the highest
// (decision 0052), and a removal leaves a tombstone for a day (decision 0052), so neither a read made
// before a change (the miss path's, which writes what it read as the API does) nor an edit that
// crossed another, written late, undoes it. Against the real Postgres (the versions are its) and Redis.
import { domainKey, isRecordTombstone, overlayKey, rotatorKey } from "@kurz/contracts";
import { createPrisma, type Domain, type PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteCampaign } from "../src/campaigns/delete-campaign.ts";
import { deleteDomain } from "../src/domains/delete-domain.ts";
import { insertLink } from "../src/links/insert-link.ts";
import type { LinkWriterDeps } from "../src/links/link-writer.ts";
import { deleteOverlay } from "../src/overlays/delete-overlay.ts";
import { DomainAndRotatorRecords, loadRotatorRecord } from "../src/projections/domain-and-rotator-records.ts";
import { OverlayRecords } from "../src/projections/overlay-records.ts";
import { TOMBSTONE_TTL_SECONDS } from "../src/projections/versioned-writes.ts";
import { createTestAccount, type InProcessWriterBed, startInProcessWriter } from "./links-helpers.ts";

let bed: InProcessWriterBed;
let prisma: PrismaClient;
let redis: Redis;
let deps: LinkWriterDeps;
let legacy: DomainAndRotatorRecords;
let overlays: OverlayRecords;
let accountId: string;
let seq = 0;

beforeAll(async () => {
  bed = await startInProcessWriter("tombstones", 86_400_000);
  ({ prisma, redis, deps } = bed);
  legacy = new DomainAndRotatorRecords(redis, { warn: () => {} });
  overlays = new OverlayRecords(redis, { warn: () => {} });
  accountId = (await createTestAccount(prisma, "tombstones")).account_id;
});

afterAll(async () => {
  await bed?.stop();
});

const newDomain = (host = `t${++seq}-${Date.now()}.brand.test`) =>
  prisma.domain.create({
    data: { accountId, host, origin: `https://${host}`, status: "verified", verifiedAt: new Date() },
  });
const editDomain = (id: number, data: Partial<Pick<Domain, "redirectRoot" | "status">>) =>
  prisma.domain.update({ where: { id }, data });
const newOverlay = (text: string) =>
  prisma.overlay.create({ data: { accountId, type: "message", name: `o${++seq}`, text } });
const newCampaign = (slug: string) => prisma.campaign.create({ data: { accountId, name: slug, slug } });
const addLink = async (campaignId: number, position: number) => {
  const link = await insertLink(deps, accountId, { url: `https://example.com/r${++seq}`, title: "r" });
  await prisma.campaignLink.create({ data: { campaignId, linkId: link.id, position } });
  return link;
};
const legacyDeps = () => ({ ...deps, domainAndRotatorRecords: legacy });

/** What the key holds: a record, "tombstone", or null (nothing). */
const held = async (key: string) => {
  const raw = await redis.get(key);
  if (raw === null) return null;
  const value: unknown = JSON.parse(raw);
  return isRecordTombstone(value) ? "tombstone" : value;
};

describe("two writes that cross", () => {
  it("keep a domain's later edit, whichever reaches Redis last", async () => {
    const d = await newDomain();
    const first = await editDomain(d.id, { redirectRoot: "https://example.com/first" });
    const second = await editDomain(d.id, { redirectRoot: "https://example.com/second" });
    expect(second.version).toBeGreaterThan(first.version); // the trigger's, on every UPDATE
    await legacy.putDomain(second);
    await legacy.putDomain(first); // the first edit's write, late
    expect(await held(domainKey(d.host))).toMatchObject({
      redirect_root: "https://example.com/second",
      v: Number(second.version),
    });
  });

  it("keep a domain removed when a failed verification crosses an edit made while it was verified", async () => {
    const d = await newDomain();
    const edited = await editDomain(d.id, { redirectRoot: "https://example.com/edited" });
    const failed = await editDomain(d.id, { status: "failed" });
    await legacy.putDomain(failed); // a failed check removes the record
    await legacy.putDomain(edited); // the edit's write, late: an unverified domain must not serve
    expect(await held(domainKey(d.host))).toBe("tombstone");
    // Verified again, it serves again.
    await legacy.putDomain(await editDomain(d.id, { status: "verified" }));
    expect(await held(domainKey(d.host))).toMatchObject({
      id: d.id,
      redirect_root: "https://example.com/edited",
    });
  });

  it("keep an overlay's later edit", async () => {
    const o = await newOverlay("first");
    const a = await prisma.overlay.update({ where: { id: o.id }, data: { text: "a" } });
    const b = await prisma.overlay.update({ where: { id: o.id }, data: { text: "b" } });
    await overlays.put(b);
    await overlays.put(a);
    expect(await held(overlayKey(o.id))).toMatchObject({ text: "b" });
  });

  it("keep a rotator read after a change over one read before it", async () => {
    const slug = `spring-${++seq}-${Date.now()}`;
    const c = await newCampaign(slug);
    await addLink(c.id, 0);
    const before = (await loadRotatorRecord(prisma, { id: c.id }))!; // the miss path's read
    await addLink(c.id, 1);
    await legacy.syncRotator(prisma, c.id, null); // the change's own write
    await legacy.putRotator(before.slug, before.record); // the read from before it, late
    expect(await held(rotatorKey(slug))).toMatchObject({ campaign_id: c.id, links: [{}, {}] });
  });

  it("replace a record written before versions", async () => {
    const d = await newDomain();
    await redis.set(
      domainKey(d.host),
      JSON.stringify({ id: d.id, account_id: accountId, redirect_root: null }),
    );
    await legacy.putDomain(await editDomain(d.id, { redirectRoot: "https://example.com/now" }));
    expect(await held(domainKey(d.host))).toMatchObject({ redirect_root: "https://example.com/now" });
  });
});

describe("a deletion's tombstone", () => {
  it("refuses a write of the domain read before the delete (an edit's, the miss path's), for a day; a domain added again serves", async () => {
    const d = await newDomain();
    const edited = await editDomain(d.id, { redirectRoot: "https://example.com/root" });
    await legacy.putDomain(edited);
    await deleteDomain(legacyDeps(), accountId, d.id);
    await legacy.putDomain(edited);
    expect(await held(domainKey(d.host))).toBe("tombstone");
    expect(await redis.ttl(domainKey(d.host))).toBeGreaterThan(TOMBSTONE_TTL_SECONDS - 60);
    // Added again (verified anew): a new row, a later version.
    const again = await newDomain(d.host);
    await legacy.putDomain(again);
    expect(await held(domainKey(d.host))).toMatchObject({ id: again.id });
    expect(await redis.ttl(domainKey(d.host))).toBe(-1);
  });

  it("refuses writes of an overlay read before its delete, whichever version they carry", async () => {
    const o = await newOverlay("before");
    await overlays.put(o);
    const edited = await prisma.overlay.update({ where: { id: o.id }, data: { text: "edited" } });
    await deleteOverlay({ ...deps, overlayRecords: overlays }, accountId, o.id);
    await overlays.put(o);
    await overlays.put(edited);
    expect(await held(overlayKey(o.id))).toBe("tombstone");
  });

  it("refuses a deleted campaign's rotator read before the delete", async () => {
    const slug = `autumn-${++seq}-${Date.now()}`;
    const c = await newCampaign(slug);
    await addLink(c.id, 0);
    const before = (await loadRotatorRecord(prisma, { slug }))!;
    await deleteCampaign(legacyDeps(), accountId, c.id);
    await legacy.putRotator(before.slug, before.record);
    expect(await held(rotatorKey(slug))).toBe("tombstone");
  });
});

describe("a slug given up", () => {
  it("is read again, not tombstoned: another campaign that took it keeps its rotator", async () => {
    const slug = `moved-${++seq}-${Date.now()}`;
    const first = await newCampaign(slug);
    await legacy.syncRotator(prisma, first.id, null);
    // The first campaign moves to another slug, and a second takes this one and writes its rotator,
    // all before the first's own write gets to the slug it gave up.
    await prisma.campaign.update({ where: { id: first.id }, data: { slug: `${slug}-new` } });
    const second = await newCampaign(slug);
    await addLink(second.id, 0);
    await legacy.syncRotator(prisma, second.id, null);
    await legacy.syncRotator(prisma, first.id, slug);
    expect(await held(rotatorKey(slug))).toMatchObject({ campaign_id: second.id, links: [{}] });
    expect(await held(rotatorKey(`${slug}-new`))).toMatchObject({ campaign_id: first.id });
  });

  it("held by nobody leaves a tombstone that a campaign taking it later replaces", async () => {
    const slug = `free-${++seq}-${Date.now()}`;
    const c = await newCampaign(slug);
    await legacy.syncRotator(prisma, c.id, null);
    await prisma.campaign.update({ where: { id: c.id }, data: { slug: null } });
    await legacy.syncRotator(prisma, c.id, slug);
    expect(await held(rotatorKey(slug))).toBe("tombstone");
    const taker = await newCampaign(slug);
    await legacy.syncRotator(prisma, taker.id, null);
    expect(await held(rotatorKey(slug))).toMatchObject({ campaign_id: taker.id });
  });

  it("is dropped when Postgres cannot be read then, for the redirect's miss path to read it", async () => {
    const slug = `dark-${++seq}-${Date.now()}`;
    const c = await newCampaign(slug);
    await legacy.syncRotator(prisma, c.id, null);
    expect(await held(rotatorKey(slug))).toMatchObject({ campaign_id: c.id });
    const unreachable = createPrisma("postgresql://postgres@127.0.0.1:1/none");
    try {
      await legacy.syncSlug(unreachable, slug);
    } finally {
      await unreachable.$disconnect();
    }
    expect(await held(rotatorKey(slug))).toBeNull();
  });
});
