// Listing the account's channels.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { type NumberedPage, numberedPage } from "../db/numbered-page.ts";

/** The account's channels, newest first. */
export function listChannels(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<NumberedPage<Channel>> {
  const where = { accountId };
  return numberedPage(
    query,
    () => prisma.channel.count({ where }),
    (skip, take) => prisma.channel.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
