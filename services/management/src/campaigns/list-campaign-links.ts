// A campaign's links in rotation order, with their weights.
import type { Link, PrismaClient } from "@kurz/db";
import { ownCampaign } from "./campaigns.ts";

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
