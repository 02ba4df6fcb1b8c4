// Changing a campaign; its rotator follows.
import type { LegacyCampaignUpdateBody } from "@kurz/contracts";
import { type Campaign, isRecordMissing, isUniqueViolation } from "@kurz/db";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { type CampaignWriterDeps, campaignNotFound, slugTaken } from "./campaigns.ts";

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
    campaign = await prisma.$transaction(async (tx) => {
      const updated = await tx.campaign.update({
        where: { id, accountId },
        data: {
          name: body.name,
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(body.public !== undefined ? { public: body.public } : {}),
        },
      });
      await recordAudit(tx, {
        accountId,
        action: "campaign.updated",
        resourceType: "campaign",
        resourceId: id,
        details: changedFields(body),
      });
      return updated;
    });
  } catch (err) {
    if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
    if (isRecordMissing(err)) throw campaignNotFound();
    throw err;
  }
  await deps.domainAndRotatorRecords.syncRotator(prisma, campaign.id, before.slug);
  return campaign;
}
