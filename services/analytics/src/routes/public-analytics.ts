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
import type { LinkDirectory } from "../management-links.ts";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";

export function publicAnalyticsRouter(deps: { ch: KurzClickHouse; links: LinkDirectory }): Router {
  const router = Router();
  const { ch, links } = deps;

  router.get("/:short_code", async (req, res) => {
    const parsed = PublicAnalyticsParams.safeParse(req.params);
    if (!parsed.success) throw notFound("Link not found");
    const period = periodOf(AnalyticsQuery.parse(req.query));
    // Management decides, so that making analytics private (or deleting the link) takes effect at once.
    const link = await links.publicLink(parsed.data.short_code);
    if (!link) throw notFound("Link not found");

    const chosen = link.analytics_shared_fields;
    const shared = chosen
      ? AnalyticsSharedField.options.filter((f) => chosen.includes(f))
      : AnalyticsSharedField.options;
    const stats = await linkStats(ch, link, period);
    const data: PublicLinkAnalytics = { short_code: link.short_code, shared_fields: [...shared] };
    for (const section of shared) {
      for (const field of SHARED_FIELD_SECTIONS[section]) Object.assign(data, { [field]: stats[field] });
    }
    res.json({ success: true, data });
  });

  return router;
}
