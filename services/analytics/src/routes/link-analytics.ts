// GET /api/v1/analytics/summary (SPEC 2.6) and GET /api/v1/analytics/:link_id (SPEC 2.5).
// Management decides which links exist and whose they are (read-your-writes, docs/analytics.md):
// another account's link, a deleted one and a missing one are the same 404, at once after a delete;
// a link just created answers 200 (zeros) even before its event reaches the link dimension.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { AnalyticsLinkParams, AnalyticsQuery } from "@kurz/contracts";
import { notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import type { LinkDirectory } from "../management-links.ts";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";
import { accountSummary } from "../queries/summary.ts";

export function linkAnalyticsRouter(deps: { ch: KurzClickHouse; links: LinkDirectory }): Router {
  const router = Router();
  const { ch, links } = deps;

  router.get("/summary", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const period = periodOf(AnalyticsQuery.parse(req.query));
    res.json({ success: true, data: await accountSummary({ ch, links }, accountId, period) });
  });

  router.get("/:link_id", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { link_id } = AnalyticsLinkParams.parse(req.params);
    const period = periodOf(AnalyticsQuery.parse(req.query));
    const link = await links.link(accountId, link_id);
    if (!link) throw notFound("Link not found");
    const data = await linkStats(ch, { link_id, account_id: accountId, short_code: link.short_code }, period);
    res.json({ success: true, data });
  });

  return router;
}
