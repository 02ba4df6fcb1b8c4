// Listing the account's branded domains.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Domain, PrismaClient } from "@kurz/db";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";

/** The account's domains, newest first. */
export function listDomains(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Domain>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.domain.count({ where }),
    (skip, take) => prisma.domain.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
