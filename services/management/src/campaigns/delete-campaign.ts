// Deleting a campaign; its rotator stops at once.
import { type Campaign, isRecordMissing } from "@kurz/db";
import { recordAudit } from "../audit/record-audit.ts";
import { enqueueCampaignMembership } from "./campaign-events.ts";
import { type CampaignWriterDeps, campaignNotFound } from "./campaigns.ts";

export async function deleteCampaign(deps: CampaignWriterDeps, accountId: string, id: number): Promise<void> {
  let campaign: Campaign;
  try {
    campaign = await deps.prisma.$transaction(async (tx) => {
      const deleted = await tx.campaign.delete({ where: { id, accountId } });
      await enqueueCampaignMembership(tx, deleted, true);
      await recordAudit(tx, {
        accountId,
        action: "campaign.deleted",
        resourceType: "campaign",
        resourceId: id,
      });
      return deleted;
    });
  } catch (err) {
    if (isRecordMissing(err)) throw campaignNotFound();
    throw err;
  }
  deps.onEventsWritten();
  // Read again, not tombstoned blindly: another campaign may have taken the slug meanwhile.
  if (campaign.slug) await deps.domainAndRotatorRecords.syncSlug(deps.prisma, campaign.slug);
}
