// What analytics asks management while a user waits (its caller credential): which
// links exist and whose they are, answered from Postgres, the truth. Analytics' own link dimension
// follows through the outbox and lags; asking here makes a create or delete visible in analytics as
// soon as it has answered, on every instance (docs/analytics.md, "Read-your-writes").
// Every answer is bounded: one link, or a fixed number of candidates and recent deletions.
// Who may ask is each record's in contracts' INTERNAL_ROUTES: a link's public-analytics answer is the
// gateway's too, for the status of its stats page.
import { INTERNAL_ROUTES, type LinksSummary, LinksSummaryQuery, Uuid } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type InternalRoute, internalRoute, notFound } from "@kurz/service-kit";
import * as z from "zod";
import { analyticsLinkRef, publicAnalyticsRef } from "../links/analytics-link-refs.ts";
import { linksSummary } from "../links/links-summary.ts";

const LinkQuery = z.object({ account_id: Uuid });
const LinkParams = z.object({ link_id: Uuid });
const AccountParams = z.object({ account_id: Uuid });

export function internalAnalyticsRoutes(deps: { prisma: PrismaClient }): InternalRoute[] {
  const { prisma } = deps;
  return [
    // Another account's link and a missing one are the same 404: analytics answers both alike.
    internalRoute(INTERNAL_ROUTES.getAnalyticsLink, async (req, res) => {
      const params = LinkParams.safeParse(req.params);
      const query = LinkQuery.safeParse(req.query);
      if (!params.success || !query.success) throw notFound("No such link");
      const ref = await analyticsLinkRef(prisma, query.data.account_id, params.data.link_id);
      if (!ref) throw notFound("No such link");
      res.json(ref);
    }),
    internalRoute(INTERNAL_ROUTES.getPublicAnalyticsLink, async (req, res) => {
      const ref = await publicAnalyticsRef(prisma, req.params.short_code);
      if (!ref) throw notFound("No such public link");
      res.json(ref);
    }),
    internalRoute(INTERNAL_ROUTES.getLinksSummary, async (req, res) => {
      const { account_id: accountId } = AccountParams.parse(req.params);
      const { candidates, deleted_within } = LinksSummaryQuery.parse(req.query);
      const summary: LinksSummary = await linksSummary(prisma, accountId, {
        candidates,
        deletedWithinSeconds: deleted_within,
      });
      res.json(summary);
    }),
  ];
}
