// Write-through of branded domains and campaign rotators into Redis for the redirect service. As with
// link records, Redis is a cache: a failed write is healed by the redirect's miss path (the internal
// resolve endpoints), so failures are logged and never fail the API request.
//
// Every write carries a version and Redis keeps the highest (decision 0052), so two writes that cross
// (two edits, an edit and a failed verification, an edit and the miss path's read) leave the later
// state. A removal leaves a tombstone for a while with its version (decision 0052), so a read made just
// before it and written just after it cannot put the record back; a deleted row's tombstone also names
// the row and refuses every later write of it.
import {
  type DomainRecord,
  domainKey,
  invalidationMessage,
  type RotatorRecord,
  rotatorKey,
  toLocation,
} from "@kurz/contracts";
import type { Domain, Prisma, PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import {
  drawRecordVersion,
  TOMBSTONE_TTL_SECONDS,
  tombstone,
  type VersionedValue,
  writeVersioned,
} from "./versioned-writes.ts";

type Kind = "domain" | "rotator";

export function toDomainRecord(domain: Domain): DomainRecord {
  return {
    id: domain.id,
    account_id: domain.accountId,
    // In their Location form, as a link's url (projections/link-records.ts).
    redirect_root: domain.redirectRoot === null ? null : toLocation(domain.redirectRoot),
    redirect_404: domain.redirect404 === null ? null : toLocation(domain.redirect404),
    https: domain.origin.startsWith("https:"),
    v: Number(domain.version),
  };
}

/**
 * The rotator of a campaign with a slug, its links in assignment order; null when it has no slug. Its
 * version is drawn first, then it is read (decision 0052): of two reads, the later-drawn sees at least
 * what the other saw, and a change's own write after its commit draws later than any read made before.
 */
export async function loadRotatorRecord(
  prisma: PrismaClient,
  where: { id: number } | { slug: string },
): Promise<{ slug: string; record: RotatorRecord } | null> {
  return (await readRotator(prisma, where)).rotator;
}

async function readRotator(
  prisma: PrismaClient,
  where: { id: number } | { slug: string },
): Promise<{ version: bigint; rotator: { slug: string; record: RotatorRecord } | null }> {
  const version = await drawRecordVersion(prisma);
  const campaign = await prisma.campaign.findUnique({
    where,
    include: {
      links: { orderBy: { position: "asc" }, include: { link: { select: { id: true, shortCode: true } } } },
    },
  });
  if (!campaign?.slug) return { version, rotator: null };
  return {
    version,
    rotator: {
      slug: campaign.slug,
      record: {
        campaign_id: campaign.id,
        account_id: campaign.accountId,
        links: campaign.links.map(({ link, weight }) => ({
          id: link.id,
          short_code: link.shortCode,
          weight,
        })),
        v: Number(version),
      },
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

export class DomainAndRotatorRecords {
  constructor(
    private readonly redis: Redis,
    private readonly logger: { warn(o: object, m?: string): void },
  ) {}

  /**
   * The domain's record at its version, kept only if no later version is there: the API's writes and the
   * miss path's (what it read) alike. Only a verified domain is visible to the redirect
   * (docs/security.md): any other leaves a tombstone of that version, which its verification replaces.
   */
  async putDomain(domain: Domain): Promise<void> {
    const value =
      domain.status === "verified"
        ? { value: JSON.stringify(toDomainRecord(domain)), rowId: domain.id, version: domain.version }
        : {
            value: tombstone({ v: Number(domain.version) }),
            rowId: domain.id,
            version: domain.version,
            ttlSeconds: TOMBSTONE_TTL_SECONDS,
          };
    await this.write("domain", domain.host, value);
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
        orderBy: { id: "asc" },
        take: 500,
      });
      if (batch.length === 0) return removed;
      for (const domain of batch) await this.putDomain(domain);
      removed += batch.length;
      after = batch[batch.length - 1]!.id;
    }
  }

  /**
   * A deleted domain's tombstone: it names the row (no write of it is taken again) and carries a version
   * drawn after the row's last (in the delete's transaction), so a domain added later for the host,
   * whose version is drawn later still, replaces it.
   */
  async removeDomain(host: string, deleted: { id: number; version: bigint }): Promise<void> {
    await this.write("domain", host, {
      value: tombstone({ id: deleted.id, v: Number(deleted.version) }),
      rowId: deleted.id,
      version: deleted.version,
      ttlSeconds: TOMBSTONE_TTL_SECONDS,
    });
  }

  /** A rotator as loadRotatorRecord read it, kept only if nothing later is (the miss path's write too). */
  async putRotator(slug: string, record: RotatorRecord): Promise<void> {
    await this.write("rotator", slug, {
      value: JSON.stringify(record),
      rowId: record.campaign_id,
      version: record.v ?? 0,
    });
  }

  /**
   * Rewrites a campaign's rotator from Postgres, and `previousSlug`'s when the slug changed (the
   * campaign gave it up, and another may hold it now).
   */
  async syncRotator(prisma: PrismaClient, campaignId: number, previousSlug: string | null): Promise<void> {
    let current: Awaited<ReturnType<typeof loadRotatorRecord>>;
    try {
      current = await loadRotatorRecord(prisma, { id: campaignId });
    } catch (err) {
      this.logger.warn({ err: String(err), campaignId }, "rotator record reload failed");
      return;
    }
    if (current) await this.putRotator(current.slug, current.record);
    if (previousSlug !== null && previousSlug !== current?.slug) await this.syncSlug(prisma, previousSlug);
  }

  async syncRotators(prisma: PrismaClient, campaignIds: number[]): Promise<void> {
    for (const id of campaignIds) await this.syncRotator(prisma, id, null);
  }

  /**
   * What `slug` names now, read after its campaign let it go (deleted, or renamed): the rotator of the
   * campaign that took it since, or a tombstone, each at a version drawn before the read. A tombstone
   * written blindly there would hide the new holder's rotator. When Postgres cannot be read, the key is
   * dropped: the redirect's miss path then reads Postgres itself.
   */
  async syncSlug(prisma: PrismaClient, slug: string): Promise<void> {
    let read: Awaited<ReturnType<typeof readRotator>>;
    try {
      read = await readRotator(prisma, { slug });
    } catch (err) {
      this.logger.warn({ err: String(err), slug }, "rotator record reload failed; dropping the record");
      await this.redis.del(rotatorKey(slug)).catch(() => undefined);
      return;
    }
    if (read.rotator) return this.putRotator(slug, read.rotator.record);
    await this.write("rotator", slug, {
      value: tombstone({ v: Number(read.version) }),
      rowId: 0,
      version: read.version,
      ttlSeconds: TOMBSTONE_TTL_SECONDS,
    });
  }

  private async write(kind: Kind, id: string, value: VersionedValue): Promise<void> {
    const key = kind === "domain" ? domainKey(id) : rotatorKey(id);
    try {
      await writeVersioned(this.redis, key, value, invalidationMessage(kind, id));
    } catch (err) {
      this.logger.warn(
        { err: String(err), kind, id },
        "legacy record write failed; the miss path will heal it",
      );
    }
  }
}
