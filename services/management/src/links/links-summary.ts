// What analytics' account summary needs from Postgres, the truth (routes/internal-analytics.ts): the
// account's link counts, which of its most clicked links are still there, and the links deleted
// recently. Every part is bounded: stored or index-served counts, a fixed number of candidates and
// deletions.
import { LINKS_SUMMARY_MAX_DELETED, type LinksSummary } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { linkCounts } from "./link-count.ts";

export async function linksSummary(
  prisma: PrismaClient,
  accountId: string,
  query: { candidates: readonly string[]; deletedWithinSeconds: number },
  now = new Date(),
): Promise<LinksSummary> {
  const since = new Date(now.getTime() - query.deletedWithinSeconds * 1000);
  const [counts, live, deleted] = await Promise.all([
    linkCounts(prisma, accountId, now),
    query.candidates.length === 0
      ? []
      : prisma.link.findMany({
          where: { accountId, id: { in: [...query.candidates] } },
          select: { id: true, shortCode: true, originalUrl: true, title: true },
        }),
    // Retired codes are written in the delete's transaction. Only links that are gone count as
    // deleted, whatever else may retire a code in the future.
    prisma.$queryRaw<{ link_id: string }[]>`
      SELECT r.link_id::text AS link_id FROM retired_codes r
      WHERE r.account_id = ${accountId}::uuid AND r.retired_at >= ${since}
        AND NOT EXISTS (SELECT 1 FROM links l WHERE l.id = r.link_id)
      ORDER BY r.retired_at DESC
      LIMIT ${LINKS_SUMMARY_MAX_DELETED + 1}`,
  ]);
  const deletedIds = [...new Set(deleted.map((r) => r.link_id))];
  return {
    total_links: counts.total,
    active_links: counts.active,
    links: live.map((l) => ({
      id: l.id,
      short_code: l.shortCode,
      original_url: l.originalUrl,
      title: l.title,
    })),
    deleted_link_ids: deletedIds.slice(0, LINKS_SUMMARY_MAX_DELETED),
    deleted_truncated: deleted.length > LINKS_SUMMARY_MAX_DELETED,
  };
}
