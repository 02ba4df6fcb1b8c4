// GET /api/v1/public/analytics/:short_code: a link's analytics without a key, when its owner made
// them public, limited to the sections the owner shares. A private, missing or deleted link is 404
// alike, so the endpoint does not reveal which codes exist.
import type { KurzClickHouse } from "@kurz/clickhouse";
import {
  AnalyticsQuery,
  AnalyticsSharedField,
  PublicAnalyticsParams,
  type PublicLinkAnalytics,
  SHARED_FIELD_SECTIONS,
} from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";

export function publicAnalyticsRouter(deps: { ch: KurzClickHouse }): Router {
  const router = Router();
  const { ch } = deps;

  router.get("/:short_code", async (req, res) => {
    const parsed = PublicAnalyticsParams.safeParse(req.params);
    if (!parsed.success) throw notFound("Link not found");
    const period = periodOf(AnalyticsQuery.parse(req.query));
    // A code can belong to a deleted link and then to a new one: the live row is the one.
    const [link] = await ch.query<{
      link_id: string;
      account_id: string;
      short_code: string;
      shares_all_fields: number;
      analytics_shared_fields: string[];
    }>(
      `SELECT toString(link_id) AS link_id, toString(account_id) AS account_id, short_code,
              shares_all_fields, analytics_shared_fields
       FROM links FINAL
       WHERE short_code = {code:String} AND deleted = 0 AND analytics_public = 1
       ORDER BY version DESC LIMIT 1`,
      { code: parsed.data.short_code },
    );
    if (!link) throw notFound("Link not found");

    const shared = link.shares_all_fields
      ? AnalyticsSharedField.options
      : AnalyticsSharedField.options.filter((f) => link.analytics_shared_fields.includes(f));
    const stats = await linkStats(ch, link, period);
    const data: PublicLinkAnalytics = { short_code: link.short_code, shared_fields: [...shared] };
    for (const section of shared) {
      for (const field of SHARED_FIELD_SECTIONS[section]) Object.assign(data, { [field]: stats[field] });
    }
    res.json({ success: true, data });
  });

  return router;
}
