// GET /api/v1/analytics/summary (SPEC 2.6) and GET /api/v1/analytics/:link_id (SPEC 2.5).
// The link dimension decides ownership: another account's link, or a deleted one, is not found.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { AnalyticsLinkParams, AnalyticsQuery } from "@kurz/contracts";
import { notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";
import { accountSummary } from "../queries/summary.ts";

export function linkAnalyticsRouter(deps: { ch: KurzClickHouse }): Router {
  const router = Router();
  const { ch } = deps;

  router.get("/summary", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const period = periodOf(AnalyticsQuery.parse(req.query));
    res.json({ success: true, data: await accountSummary(ch, accountId, period) });
  });

  router.get("/:link_id", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { link_id } = AnalyticsLinkParams.parse(req.params);
    const period = periodOf(AnalyticsQuery.parse(req.query));
    const [link] = await ch.query<{ short_code: string }>(
      `SELECT short_code FROM links FINAL
       WHERE link_id = {id:UUID} AND account_id = {account:UUID} AND deleted = 0`,
      { id: link_id, account: accountId },
    );
    if (!link) throw notFound("Link not found");
    const data = await linkStats(ch, { link_id, account_id: accountId, short_code: link.short_code }, period);
    res.json({ success: true, data });
  });

  return router;
}
