// What analytics asks management while a user waits (caller credential of analytics only): which
// links exist and whose they are, answered from Postgres, the truth. Analytics' own link dimension
// follows through the outbox and lags; asking here makes a create or delete visible in analytics as
// soon as it has answered, on every instance (docs/analytics.md, "Read-your-writes").
// Every answer is bounded: one link, or a fixed number of candidates and recent deletions.
import {
  type AnalyticsLinkRef,
  AnalyticsSharedField,
  type LinksSummary,
  LinksSummaryQuery,
  type PublicAnalyticsRef,
  Uuid,
} from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import * as z from "zod";
import { linksSummary } from "../links/links-summary.ts";

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
    const summary: LinksSummary = await linksSummary(prisma, accountId, {
      candidates,
      deletedWithinSeconds: deleted_within,
    });
    res.json(summary);
  });

  return router;
}
