// Listing the account's channels.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Channel, PrismaClient } from "@kurz/db";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";

/** The account's channels, newest first. */
export function listChannels(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Channel>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.channel.count({ where }),
    (skip, take) => prisma.channel.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
