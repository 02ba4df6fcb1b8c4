// The older API's campaigns (SPEC 2.10, 4.2): list, create, update, delete, assign a link, and the
// public list page's content. A campaign with a slug has a rotator, whose Redis record (domain-and-rotator-records.ts)
// every write here brings up to date after it commits. Another account's campaign is not found.
import type { LegacyCampaignAddBody, LegacyCampaignUpdateBody, LegacyListQuery } from "@kurz/contracts";
import { type Campaign, isRecordMissing, isUniqueViolation, type Link, type PrismaClient } from "@kurz/db";
import { conflict, notFound } from "@kurz/service-kit";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";
import { enqueueCampaignMembership } from "./campaign-events.ts";

export interface CampaignWriterDeps {
  prisma: PrismaClient;
  domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "syncRotator" | "syncSlug">;
}

const DEFAULT_CAMPAIGN_NAME = "Untitled campaign";
const campaignNotFound = () => notFound("Campaign not found");
const slugTaken = (slug: string) => conflict(`The rotator slug '${slug}' is already taken`);

/** The account's campaigns, newest first. */
export function listCampaigns(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Campaign>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.campaign.count({ where }),
    (skip, take) => prisma.campaign.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}

/** Without a name the campaign is named after its slug; 409 when the slug is taken. */
export async function createCampaign(
  deps: CampaignWriterDeps,
  accountId: string,
  body: LegacyCampaignAddBody,
): Promise<Campaign> {
  let campaign: Campaign;
  try {
    campaign = await deps.prisma.campaign.create({
      data: {
        accountId,
        name: body.name ?? body.slug ?? DEFAULT_CAMPAIGN_NAME,
        slug: body.slug ?? null,
        public: body.public ?? false,
      },
    });
  } catch (err) {
    if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
    throw err;
  }
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaign.id, null);
  return campaign;
}

/** `slug: null` removes the rotator; a changed slug moves it. */
export async function updateCampaign(
  deps: CampaignWriterDeps,
  accountId: string,
  id: number,
  body: LegacyCampaignUpdateBody,
): Promise<Campaign> {
  const { prisma } = deps;
  const before = await prisma.campaign.findFirst({ where: { id, accountId }, select: { slug: true } });
  if (!before) throw campaignNotFound();
  let campaign: Campaign;
  try {
    campaign = await prisma.campaign.update({
      where: { id, accountId },
      data: {
        name: body.name,
        ...(body.slug !== undefined ? { slug: body.slug } : {}),
        ...(body.public !== undefined ? { public: body.public } : {}),
      },
    });
  } catch (err) {
    if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
    if (isRecordMissing(err)) throw campaignNotFound();
    throw err;
  }
  await deps.domainAndRotatorRecords.syncRotator(prisma, campaign.id, before.slug);
  return campaign;
}

export async function deleteCampaign(deps: CampaignWriterDeps, accountId: string, id: number): Promise<void> {
  let campaign: Campaign;
  try {
    campaign = await deps.prisma.$transaction(async (tx) => {
      const deleted = await tx.campaign.delete({ where: { id, accountId } });
      await enqueueCampaignMembership(tx, deleted, true);
      return deleted;
    });
  } catch (err) {
    if (isRecordMissing(err)) throw campaignNotFound();
    throw err;
  }
  // Read again, not tombstoned blindly: another campaign may have taken the slug meanwhile.
  if (campaign.slug) await deps.domainAndRotatorRecords.syncSlug(deps.prisma, campaign.slug);
}

/**
 * Appends one of the account's links to one of its campaigns (last position). Returns false when the
 * link was already there, which changes nothing.
 */
export async function assignLinkToCampaign(
  deps: CampaignWriterDeps,
  accountId: string,
  campaignId: number,
  linkId: string,
): Promise<boolean> {
  const added = await deps.prisma.$transaction(async (tx) => {
    // Locking the campaign row serialises assignments, so positions stay unique and gap-free.
    const locked = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM campaigns WHERE id = ${campaignId} AND account_id = ${accountId}::uuid FOR UPDATE`;
    if (locked.length === 0) throw campaignNotFound();
    const link = await tx.link.findFirst({ where: { id: linkId, accountId }, select: { id: true } });
    if (!link) throw notFound("Link not found");
    const existing = await tx.campaignLink.findUnique({
      where: { campaignId_linkId: { campaignId, linkId } },
    });
    if (existing) return false;
    const last = await tx.campaignLink.aggregate({ where: { campaignId }, _max: { position: true } });
    await tx.campaignLink.create({
      data: { campaignId, linkId, position: (last._max.position ?? 0) + 1 },
    });
    await enqueueCampaignMembership(tx, { id: campaignId, accountId });
    return true;
  });
  if (added) await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
  return added;
}

/**
 * A public campaign's name and the links a visitor could follow, in assignment order; null for an
 * unknown or private campaign, so the page cannot tell the two apart. The rotator's rule: inactive
 * and expired links would end on an error page, and a password-protected one is not listed at all,
 * since its title (or even its existence) may be what the password protects (docs/legacy-api.md).
 *
 * `brandedHost` is the Host's name when the page is asked for on a host other than the origin's own:
 * then the campaign is found only when that host is one of its account's verified branded domains, so
 * no account's page can be shown under another account's name.
 */
export async function findPublicCampaign(
  prisma: PrismaClient,
  publicId: string,
  brandedHost: string | null,
): Promise<{ accountId: string; name: string; links: Link[] } | null> {
  const campaign = await prisma.campaign.findUnique({
    where: { publicId },
    include: { links: { orderBy: { position: "asc" }, include: { link: true } } },
  });
  if (!campaign?.public) return null;
  if (brandedHost !== null) {
    const domain = await prisma.domain.findFirst({
      where: { host: brandedHost, accountId: campaign.accountId, status: "verified" },
      select: { id: true },
    });
    if (!domain) return null;
  }
  const now = Date.now();
  const links = campaign.links
    .map(({ link }) => link)
    .filter(
      (link) =>
        link.isActive &&
        link.passwordHash === null &&
        (link.expiresAt === null || link.expiresAt.getTime() > now),
    );
  return { accountId: campaign.accountId, name: campaign.name, links };
}

/** The campaign of the account, or 404. */
async function ownCampaign(prisma: PrismaClient, accountId: string, id: number): Promise<Campaign> {
  const campaign = await prisma.campaign.findFirst({ where: { id, accountId } });
  if (!campaign) throw campaignNotFound();
  return campaign;
}

/** The campaign's links in rotation (assignment) order, with their weights. */
export async function listCampaignLinks(
  prisma: PrismaClient,
  accountId: string,
  campaignId: number,
): Promise<Array<{ link: Link; weight: number; position: number }>> {
  await ownCampaign(prisma, accountId, campaignId);
  const rows = await prisma.campaignLink.findMany({
    where: { campaignId },
    orderBy: { position: "asc" },
    include: { link: true },
  });
  return rows.map(({ link, weight, position }) => ({ link, weight, position }));
}

/** Sets the rotator weight of a link already in the campaign (decision 0026). */
export async function setCampaignLinkWeight(
  deps: CampaignWriterDeps,
  accountId: string,
  campaignId: number,
  linkId: string,
  weight: number,
): Promise<void> {
  await ownCampaign(deps.prisma, accountId, campaignId);
  const updated = await deps.prisma.campaignLink.updateMany({
    where: { campaignId, linkId },
    data: { weight },
  });
  if (updated.count === 0) throw notFound("Link is not in this campaign");
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
}

/** Takes the link out of the campaign; the rotator stops sending visitors to it at once. */
export async function removeLinkFromCampaign(
  deps: CampaignWriterDeps,
  accountId: string,
  campaignId: number,
  linkId: string,
): Promise<void> {
  await ownCampaign(deps.prisma, accountId, campaignId);
  await deps.prisma.$transaction(async (tx) => {
    const removed = await tx.campaignLink.deleteMany({ where: { campaignId, linkId } });
    if (removed.count === 0) throw notFound("Link is not in this campaign");
    await enqueueCampaignMembership(tx, { id: campaignId, accountId });
  });
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
}
