// Creating a campaign, with its rotator when it has a slug.
import type { LegacyCampaignAddBody } from "@kurz/contracts";
import { type Campaign, isUniqueViolation } from "@kurz/db";
import { type CampaignWriterDeps, DEFAULT_CAMPAIGN_NAME, slugTaken } from "./campaigns.ts";

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
