// GET /api/v1/public/analytics/:short_code: a link's analytics without a key, when its owner made
// them public, limited to the sections the owner shares. A private, missing or deleted link is 404
// alike (a malformed code too: see its record), so the endpoint does not reveal which codes exist.
import type { KurzClickHouse } from "@kurz/clickhouse";
import {
  AnalyticsSharedField,
  type PublicLinkAnalytics,
  ROUTES,
  SHARED_FIELD_SECTIONS,
} from "@kurz/contracts";
import { type MountedRoute, notFound, route, v1Success } from "@kurz/service-kit";
import type { LinkDirectory } from "../management-links.ts";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";

export function publicAnalyticsRoutes(deps: { ch: KurzClickHouse; links: LinkDirectory }): MountedRoute[] {
  const { ch, links } = deps;
  return [
    route(ROUTES.getPublicAnalytics, async ({ params: { short_code }, query }) => {
      const period = periodOf(query);
      // Management decides, so that making analytics private (or deleting the link) takes effect at once.
      const link = await links.publicLink(short_code);
      if (!link) throw notFound("Link not found.");

      const chosen = link.analytics_shared_fields;
      const shared = chosen
        ? AnalyticsSharedField.options.filter((f) => chosen.includes(f))
        : AnalyticsSharedField.options;
      const stats = await linkStats(ch, link, period, query.interval);
      const data: PublicLinkAnalytics = { short_code: link.short_code, shared_fields: [...shared] };
      for (const section of shared) {
        for (const field of SHARED_FIELD_SECTIONS[section]) Object.assign(data, { [field]: stats[field] });
      }
      return v1Success(data);
    }),
  ];
}
