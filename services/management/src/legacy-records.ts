// Write-through of branded domains and campaign rotators into Redis for the redirect service. As with
// link records, Redis is a cache: a failed write is healed by the redirect's miss path (the internal
// resolve endpoints), so failures are logged and never fail the API request.
//
// A removal leaves a tombstone for a while, and the miss path's healing write only fills an empty key
// (decision 0051): a read made just before a domain's delete or a campaign's, written just after it,
// would otherwise put the record back for good. A deleted row's tombstone names it, and the API's own
// writes of that row are refused over it (an edit that committed before the delete and was written
// after it); a removal of a row that may come back (a domain no longer verified, a slug given up)
// names none, and any write replaces it.
import {
  type DomainRecord,
  domainKey,
  INVALIDATION_CHANNEL,
  invalidationMessage,
  type RotatorRecord,
  rotatorKey,
} from "@kurz/contracts";
import type { Domain, Prisma, PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import { defineGuardedSet, type GuardedSet, TOMBSTONE_TTL_SECONDS, tombstone } from "./record-tombstones.ts";

type Kind = "domain" | "rotator";
/**
 * A write as the API's changes make it (`rowId`: the domain's or campaign's id, refused over that
 * row's tombstone), a removal (`deletedId`: the row is gone for good), or the miss path's heal (only
 * into an empty key).
 */
type Write =
  | { value: string; rowId: number }
  | { value: string; heal: true }
  | { removed: true; deletedId?: number };

export function toDomainRecord(domain: Domain): DomainRecord {
  return {
    id: domain.id,
    account_id: domain.accountId,
    redirect_root: domain.redirectRoot,
    redirect_404: domain.redirect404,
  };
}

/** The rotator of a campaign with a slug, its links in assignment order; null when it has no slug. */
export async function loadRotatorRecord(
  prisma: PrismaClient,
  where: { id: number } | { slug: string },
): Promise<{ slug: string; record: RotatorRecord } | null> {
  const campaign = await prisma.campaign.findUnique({
    where,
    include: {
      links: { orderBy: { position: "asc" }, include: { link: { select: { id: true, shortCode: true } } } },
    },
  });
  if (!campaign?.slug) return null;
  return {
    slug: campaign.slug,
    record: {
      campaign_id: campaign.id,
      account_id: campaign.accountId,
      links: campaign.links.map(({ link, weight }) => ({ id: link.id, short_code: link.shortCode, weight })),
    },
  };
}

/**
 * Campaigns that hold any of these links. Deleting a link removes it from its campaigns (cascade), so
 * a link delete should read these first and then `syncRotators` them, or the rotator record keeps
 * the deleted link's code until the next change to that campaign.
 */
export async function campaignsOfLinks(
  prisma: PrismaClient | Prisma.TransactionClient,
  linkIds: string[],
): Promise<number[]> {
  if (linkIds.length === 0) return [];
  const rows = await prisma.campaignLink.findMany({
    where: { linkId: { in: linkIds } },
    select: { campaignId: true },
    distinct: ["campaignId"],
  });
  return rows.map((r) => r.campaignId);
}

export class LegacyRecords {
  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
  ) {
    defineGuardedSet(redis);
  }

  /** Only a verified domain is visible to the redirect (docs/security.md): anything else is removed. */
  async putDomain(host: string, domain: Domain): Promise<void> {
    if (domain.status !== "verified") return this.removeDomain(host);
    await this.write("domain", host, { value: JSON.stringify(toDomainRecord(domain)), rowId: domain.id });
  }

  /** The miss path's write of what it read: into an empty key only (never over a removal or an edit). */
  async healDomain(domain: Domain): Promise<void> {
    if (domain.status !== "verified") return;
    await this.write("domain", domain.host, { value: JSON.stringify(toDomainRecord(domain)), heal: true });
  }

  /**
   * Removes the records of every unverified domain. Run at start: rows that predate verification were
   * migrated to pending, but their records, written when any domain served at once, may remain.
   */
  async removeUnverifiedDomains(prisma: PrismaClient): Promise<number> {
    let removed = 0;
    let after = 0;
    for (;;) {
      const batch = await prisma.domain.findMany({
        where: { id: { gt: after }, status: { not: "verified" } },
        select: { id: true, host: true },
        orderBy: { id: "asc" },
        take: 500,
      });
      if (batch.length === 0) return removed;
      for (const { host } of batch) await this.removeDomain(host);
      removed += batch.length;
      after = batch[batch.length - 1]!.id;
    }
  }

  /** `deletedId`: the domain row was deleted (never to come back); without it, it only stopped serving. */
  async removeDomain(host: string, deletedId?: number): Promise<void> {
    await this.write("domain", host, { removed: true, deletedId });
  }

  async putRotator(slug: string, record: RotatorRecord): Promise<void> {
    await this.write("rotator", slug, { value: JSON.stringify(record), rowId: record.campaign_id });
  }

  /** As healDomain, for a rotator the miss path read. */
  async healRotator(slug: string, record: RotatorRecord): Promise<void> {
    await this.write("rotator", slug, { value: JSON.stringify(record), heal: true });
  }

  /** `deletedId`: the campaign was deleted; without it, the slug was given up (it may be taken back). */
  async removeRotator(slug: string, deletedId?: number): Promise<void> {
    await this.write("rotator", slug, { removed: true, deletedId });
  }

  /** Rewrites the rotator of a campaign from Postgres (or removes `previousSlug` when it changed). */
  async syncRotator(prisma: PrismaClient, campaignId: number, previousSlug: string | null): Promise<void> {
    let current: Awaited<ReturnType<typeof loadRotatorRecord>>;
    try {
      current = await loadRotatorRecord(prisma, { id: campaignId });
    } catch (err) {
      this.logger.warn({ err: String(err), campaignId }, "rotator record reload failed");
      return;
    }
    if (previousSlug !== null && previousSlug !== current?.slug) await this.removeRotator(previousSlug);
    if (current) await this.putRotator(current.slug, current.record);
  }

  async syncRotators(prisma: PrismaClient, campaignIds: number[]): Promise<void> {
    for (const id of campaignIds) await this.syncRotator(prisma, id, null);
  }

  private async write(kind: Kind, id: string, write: Write): Promise<void> {
    const key = kind === "domain" ? domainKey(id) : rotatorKey(id);
    try {
      const tx = this.redis.multi();
      // Without deletedId the tombstone names nothing (JSON leaves an undefined member out).
      if ("removed" in write) tx.set(key, tombstone({ id: write.deletedId }), "EX", TOMBSTONE_TTL_SECONDS);
      else if ("heal" in write) tx.set(key, write.value, "NX");
      else (tx as unknown as GuardedSet).kurzGuardedSet(key, write.value, String(write.rowId));
      await tx.publish(INVALIDATION_CHANNEL, invalidationMessage(kind, id)).exec();
    } catch (err) {
      this.logger.warn(
        { err: String(err), kind, id },
        "legacy record write failed; the miss path will heal it",
      );
    }
  }
}
