// Creating a campaign, with its rotator when it has a slug.
import type { LegacyCampaignAddBody } from "@kurz/contracts";
import { type Campaign, isUniqueViolation } from "@kurz/db";
import { recordCreated } from "../audit/record-audit.ts";
import { enqueueCampaignMembership } from "./campaign-events.ts";
import { type CampaignWriterDeps, DEFAULT_CAMPAIGN_NAME, slugTaken } from "./campaigns.ts";

/**
 * Without a name the campaign is named after its slug; 409 when the slug is taken. Its (empty)
 * membership goes to analytics with it, so its analytics answer "no clicks" rather than "not found".
 */
export async function createCampaign(
  deps: CampaignWriterDeps,
  accountId: string,
  body: LegacyCampaignAddBody,
): Promise<Campaign> {
  let campaign: Campaign;
  try {
    campaign = await deps.prisma.$transaction(async (tx) => {
      const created = await tx.campaign.create({
        data: {
          accountId,
          name: body.name ?? body.slug ?? DEFAULT_CAMPAIGN_NAME,
          slug: body.slug ?? null,
          public: body.public ?? false,
        },
      });
      await enqueueCampaignMembership(tx, created);
      await recordCreated(tx, accountId, "campaign", created.id);
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
    throw err;
  }
  deps.onEventsWritten();
  await deps.domainAndRotatorRecords.syncRotator(deps.prisma, campaign.id, null);
  return campaign;
}
