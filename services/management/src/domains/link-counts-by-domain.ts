// How many links each of the account's domains carries.
import type { PrismaClient } from "@kurz/db";

/** How many links each of the account's domains carries (what deleting it would delete). */
export async function linkCountsByDomain(
  prisma: PrismaClient,
  accountId: string,
  domainIds: readonly number[],
): Promise<Map<number, number>> {
  if (domainIds.length === 0) return new Map();
  const rows = await prisma.link.groupBy({
    by: ["domainId"],
    where: { accountId, domainId: { in: [...domainIds] } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.domainId!, r._count._all]));
}
