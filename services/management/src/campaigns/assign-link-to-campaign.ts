// Putting a link in a campaign (and its rotator).
import { notFound } from "@kurz/service-kit";
import { recordLinkMembership } from "../audit/record-audit.ts";
import { enqueueCampaignMembership } from "./campaign-events.ts";
import { type CampaignWriterDeps, campaignNotFound } from "./campaigns.ts";

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
    await recordLinkMembership(tx, accountId, { type: "campaign", id: campaignId }, "link_added", linkId);
    return true;
  });
  if (added) {
    deps.onEventsWritten();
    await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
  }
  return added;
}
