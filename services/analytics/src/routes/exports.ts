// GET /api/v1/exports/analytics: the account's clicks as CSV, streamed (exports/analytics-export.ts).
// One link's export asks management first, like every analytics read (read-your-writes): another
// account's link and a deleted one are 404.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { ROUTES } from "@kurz/contracts";
import { type MountedRoute, notFound, route } from "@kurz/service-kit";
import { exportAnalytics } from "../exports/analytics-export.ts";
import type { LinkDirectory } from "../management-links.ts";

export function analyticsExportRoutes(deps: { ch: KurzClickHouse; links: LinkDirectory }): MountedRoute[] {
  return [
    route(ROUTES.exportAnalytics, async ({ identity: { accountId }, query }) => {
      if (query.link_id !== undefined && !(await deps.links.link(accountId, query.link_id))) {
        throw notFound("Link not found.");
      }
      return {
        contentType: "text/csv",
        body: exportAnalytics(deps.ch, accountId, query),
        headers: {
          "Content-Disposition": 'attachment; filename="analytics.csv"',
          "Cache-Control": "no-store",
        },
      };
    }),
  ];
}
