// What analytics asks management while a user waits (caller credential of analytics only): which
// links exist and whose they are, answered from Postgres, the truth. Analytics' own link dimension
// follows through the outbox and lags; asking here makes a create or delete visible in analytics as
// soon as it has answered, on every instance (docs/analytics.md, "Read-your-writes").
// Every answer is bounded: one link, or a fixed number of candidates and recent deletions.
import {
  type AnalyticsLinkRef,
  AnalyticsSharedField,
  LINKS_SUMMARY_MAX_DELETED,
  type LinksSummary,
  LinksSummaryQuery,
  type PublicAnalyticsRef,
  Uuid,
} from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import * as z from "zod";
import { storedLinkCount } from "../link-count.ts";

const LinkQuery = z.object({ account_id: Uuid });
const LinkParams = z.object({ link_id: Uuid });
const AccountParams = z.object({ account_id: Uuid });
const SharedFields = z.array(AnalyticsSharedField).nullable().catch(null);

export function internalAnalyticsRouter(deps: { prisma: PrismaClient }): Router {
  const router = Router();
  const { prisma } = deps;

  // Another account's link and a missing one are the same 404: analytics answers both alike.
  router.get("/links/:link_id", async (req, res) => {
    const params = LinkParams.safeParse(req.params);
    const query = LinkQuery.safeParse(req.query);
    if (!params.success || !query.success) throw notFound("No such link");
    const link = await prisma.link.findFirst({
      where: { id: params.data.link_id, accountId: query.data.account_id },
      select: { id: true, shortCode: true, createdAt: true },
    });
    if (!link) throw notFound("No such link");
    const ref: AnalyticsLinkRef = {
      link_id: link.id,
      short_code: link.shortCode,
      created_at: link.createdAt.toISOString(),
    };
    res.json(ref);
  });

  router.get("/public/:short_code", async (req, res) => {
    const link = await prisma.link.findUnique({
      where: { shortCode: req.params.short_code },
      select: {
        id: true,
        accountId: true,
        shortCode: true,
        analyticsPublic: true,
        analyticsSharedFields: true,
      },
    });
    if (!link?.analyticsPublic) throw notFound("No such public link");
    const ref: PublicAnalyticsRef = {
      link_id: link.id,
      account_id: link.accountId,
      short_code: link.shortCode,
      analytics_shared_fields: SharedFields.parse(link.analyticsSharedFields ?? null),
    };
    res.json(ref);
  });

  router.get("/accounts/:account_id/links-summary", async (req, res) => {
    const { account_id: accountId } = AccountParams.parse(req.params);
    const { candidates, deleted_within } = LinksSummaryQuery.parse(req.query);
    const now = new Date();
    const since = new Date(now.getTime() - deleted_within * 1000);
    const [total, active, live, deleted] = await Promise.all([
      storedLinkCount(prisma, accountId),
      // The same rule as the redirect: inactive or expired links do not count as active.
      prisma.link.count({
        where: { accountId, isActive: true, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      }),
      candidates.length === 0
        ? []
        : prisma.link.findMany({
            where: { accountId, id: { in: candidates } },
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
    const summary: LinksSummary = {
      total_links: total,
      active_links: active,
      links: live.map((l) => ({
        id: l.id,
        short_code: l.shortCode,
        original_url: l.originalUrl,
        title: l.title,
      })),
      deleted_link_ids: deletedIds.slice(0, LINKS_SUMMARY_MAX_DELETED),
      deleted_truncated: deleted.length > LINKS_SUMMARY_MAX_DELETED,
    };
    res.json(summary);
  });

  return router;
}
