// The rows of an import that need their owner (links created inactive), each with its link as it is now.
import type { ImportAttentionRow } from "@kurz/contracts";
import type { ImportJob, PrismaClient } from "@kurz/db";

/**
 * A page of the job's rows that need their owner, in row order, each with its link now: the link is
 * read by id within the job's account, so a link deleted (or never the account's) shows as null.
 */
export async function attentionRows(
  prisma: PrismaClient,
  job: Pick<ImportJob, "id" | "accountId">,
  skip: number,
  take: number,
): Promise<ImportAttentionRow[]> {
  const rows = await prisma.importRowAttention.findMany({
    where: { jobId: job.id },
    orderBy: { row: "asc" },
    skip,
    take,
  });
  const links =
    rows.length === 0
      ? []
      : await prisma.link.findMany({
          where: { accountId: job.accountId, id: { in: rows.map((r) => r.linkId) } },
          select: { id: true, shortCode: true, isActive: true, passwordHash: true },
        });
  const byId = new Map(links.map((l) => [l.id, l]));
  return rows.map((r) => {
    const link = byId.get(r.linkId);
    return {
      row: r.row,
      link_id: r.linkId,
      alias: r.alias,
      url: r.url,
      reason: r.reason,
      link: link
        ? { short_code: link.shortCode, is_active: link.isActive, has_password: link.passwordHash !== null }
        : null,
    };
  });
}
