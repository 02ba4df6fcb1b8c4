// What the campaign use cases share (the older API's /api/campaigns). A campaign with
// a slug has a rotator, whose Redis record (projections/domain-and-rotator-records.ts) every write
// brings up to date after it commits. Another account's campaign is not found.
import type { Campaign, PrismaClient } from "@kurz/db";
import { conflict, notFound } from "@kurz/service-kit";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";

export interface CampaignWriterDeps {
  prisma: PrismaClient;
  domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "syncRotator" | "syncSlug">;
  /** Wakes the outbox relay after a commit that wrote membership events, so analytics hears at once. */
  onEventsWritten: () => void;
}

export const DEFAULT_CAMPAIGN_NAME = "Untitled campaign";

export const campaignNotFound = () => notFound("Campaign not found");

export const slugTaken = (slug: string) => conflict(`The rotator slug '${slug}' is already taken`);

/** The campaign of the account, or 404. */
export async function ownCampaign(prisma: PrismaClient, accountId: string, id: number): Promise<Campaign> {
  const campaign = await prisma.campaign.findFirst({ where: { id, accountId } });
  if (!campaign) throw campaignNotFound();
  return campaign;
}
