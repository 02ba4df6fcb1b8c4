// Listing the account's branded domains.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Domain, PrismaClient } from "@kurz/db";
import { type NumberedPage, numberedPage } from "../db/numbered-page.ts";

/** The account's domains, newest first. */
export function listDomains(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<NumberedPage<Domain>> {
  const where = { accountId };
  return numberedPage(
    query,
    () => prisma.domain.count({ where }),
    (skip, take) => prisma.domain.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
