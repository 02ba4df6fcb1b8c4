// Setting a link's rotator weight.
import { notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { type CampaignWriterDeps, ownCampaign } from "./campaigns.ts";

/** Sets the rotator weight of a link already in the campaign (decision 0026). */
export async function setCampaignLinkWeight(
  deps: CampaignWriterDeps,
  accountId: string,
  campaignId: number,
  linkId: string,
  weight: number,
): Promise<void> {
  await ownCampaign(deps.prisma, accountId, campaignId);
  await deps.prisma.$transaction(async (tx) => {
    const updated = await tx.campaignLink.updateMany({ where: { campaignId, linkId }, data: { weight } });
    if (updated.count === 0) throw notFound("Link is not in this campaign");
    await recordAudit(tx, {
      accountId,
      action: "campaign.link_weight_set",
      resourceType: "campaign",
      resourceId: campaignId,
      details: { link_id: linkId, weight },
    });
  });
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaignId, null);
}
