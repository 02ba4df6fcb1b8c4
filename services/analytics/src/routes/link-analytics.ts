// GET /api/v1/analytics/summary and GET /api/v1/analytics/:link_id (docs/analytics.md).
// Management decides which links exist and whose they are (read-your-writes, docs/analytics.md):
// another account's link, a deleted one and a missing one are the same 404, at once after a delete;
// a link just created answers 200 (zeros) even before its event reaches the link dimension.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { ROUTES } from "@kurz/contracts";
import { type MountedRoute, notFound, route, v1Success } from "@kurz/service-kit";
import type { LinkDirectory } from "../management-links.ts";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";
import { accountSummary } from "../queries/summary.ts";

export function linkAnalyticsRoutes(deps: { ch: KurzClickHouse; links: LinkDirectory }): MountedRoute[] {
  const { ch, links } = deps;
  return [
    route(ROUTES.getAnalyticsSummary, async ({ identity: { accountId }, query }) =>
      v1Success(await accountSummary({ ch, links }, accountId, periodOf(query), query.interval)),
    ),

    route(ROUTES.getLinkAnalytics, async ({ identity: { accountId }, params: { link_id }, query }) => {
      const period = periodOf(query);
      const link = await links.link(accountId, link_id);
      if (!link) throw notFound("Link not found.");
      return v1Success(
        await linkStats(
          ch,
          { link_id, account_id: accountId, short_code: link.short_code },
          period,
          query.interval,
        ),
      );
    }),
  ];
}
