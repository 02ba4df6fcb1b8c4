// Listing the account's campaigns.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Campaign, PrismaClient } from "@kurz/db";
import { type NumberedPage, numberedPage } from "../db/numbered-page.ts";

/** The account's campaigns, newest first. */
export function listCampaigns(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<NumberedPage<Campaign>> {
  const where = { accountId };
  return numberedPage(
    query,
    () => prisma.campaign.count({ where }),
    (skip, take) => prisma.campaign.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
