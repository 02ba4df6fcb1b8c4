// Taking a link out of a campaign (and its rotator).
import { notFound } from "@kurz/service-kit";
import { recordLinkMembership } from "../audit/record-audit.ts";
import { enqueueCampaignMembership } from "./campaign-events.ts";
import { type CampaignWriterDeps, ownCampaign } from "./campaigns.ts";

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
    await recordLinkMembership(tx, accountId, { type: "campaign", id: campaignId }, "link_removed", linkId);
  });
  deps.onEventsWritten();
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
}
