// What analytics asks about a link while a user waits, answered from Postgres, the truth: whose link an
// id is, and whether a code's analytics are public (and which of their fields).
import { type AnalyticsLinkRef, AnalyticsSharedField, type PublicAnalyticsRef } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import * as z from "zod";

const SharedFields = z.array(AnalyticsSharedField).nullable().catch(null);

/** The account's link `linkId`, or null (another account's link is the same null as a missing one). */
export async function analyticsLinkRef(
  prisma: PrismaClient,
  accountId: string,
  linkId: string,
): Promise<AnalyticsLinkRef | null> {
  const link = await prisma.link.findFirst({
    where: { id: linkId, accountId },
    select: { id: true, shortCode: true, createdAt: true },
  });
  if (!link) return null;
  return { link_id: link.id, short_code: link.shortCode, created_at: link.createdAt.toISOString() };
}

/** The link on `shortCode` when its analytics are public, or null. */
export async function publicAnalyticsRef(
  prisma: PrismaClient,
  shortCode: string,
): Promise<PublicAnalyticsRef | null> {
  const link = await prisma.link.findUnique({
    where: { shortCode },
    select: {
      id: true,
      accountId: true,
      shortCode: true,
      analyticsPublic: true,
      analyticsSharedFields: true,
    },
  });
  if (!link?.analyticsPublic) return null;
  return {
    link_id: link.id,
    account_id: link.accountId,
    short_code: link.shortCode,
    analytics_shared_fields: SharedFields.parse(link.analyticsSharedFields ?? null),
  };
}
