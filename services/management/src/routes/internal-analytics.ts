// What analytics asks management while a user waits (caller credential of analytics only): which
// links exist and whose they are, answered from Postgres, the truth. Analytics' own link dimension
// follows through the outbox and lags; asking here makes a create or delete visible in analytics as
// soon as it has answered, on every instance (docs/analytics.md, "Read-your-writes").
// Every answer is bounded: one link, or a fixed number of candidates and recent deletions.
import { type LinksSummary, LinksSummaryQuery, Uuid } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import * as z from "zod";
import { analyticsLinkRef, publicAnalyticsRef } from "../links/analytics-link-refs.ts";
import { linksSummary } from "../links/links-summary.ts";

const LinkQuery = z.object({ account_id: Uuid });
const LinkParams = z.object({ link_id: Uuid });
const AccountParams = z.object({ account_id: Uuid });

export function internalAnalyticsRouter(deps: { prisma: PrismaClient }): Router {
  const router = Router();
  const { prisma } = deps;

  // Another account's link and a missing one are the same 404: analytics answers both alike.
  router.get("/links/:link_id", async (req, res) => {
    const params = LinkParams.safeParse(req.params);
    const query = LinkQuery.safeParse(req.query);
    if (!params.success || !query.success) throw notFound("No such link");
    const ref = await analyticsLinkRef(prisma, query.data.account_id, params.data.link_id);
    if (!ref) throw notFound("No such link");
    res.json(ref);
  });

  router.get("/public/:short_code", async (req, res) => {
    const ref = await publicAnalyticsRef(prisma, req.params.short_code);
    if (!ref) throw notFound("No such public link");
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
