// GET /api/v1/analytics/campaigns/:id: clicks of a campaign's links, per link and in total,
// over the same periods as a link's analytics (the same query and the same per-link statistics). Which
// links make up a campaign, and whose it is, comes from management's `campaign.links` events
// (campaign_members): analytics owns clicks, management owns campaigns. Another account's campaign,
// a deleted one and an unknown one are the same 404. A rotator's click names its destination link, so
// the rotator's traffic appears under each destination.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { ROUTES } from "@kurz/contracts";
import { type MountedRoute, notFound, route, v1Success } from "@kurz/service-kit";
import { linkStats } from "../queries/link-stats.ts";
import { periodOf } from "../queries/period.ts";

/** Campaigns are small; beyond this many links only the first (in rotation order) are reported. */
const CAMPAIGN_LINKS_MAX = 100;

interface MembersRow {
  account_id: string;
  link_ids: string[];
  short_codes: string[];
  deleted: number;
}

export function campaignAnalyticsRoutes(deps: { ch: KurzClickHouse }): MountedRoute[] {
  const { ch } = deps;
  return [
    route(ROUTES.getCampaignAnalytics, async ({ identity: { accountId }, params: { id }, query }) => {
      const [members] = await ch.query<MembersRow>(
        `SELECT account_id, link_ids, short_codes, deleted FROM campaign_members FINAL
         WHERE campaign_id = {id:UInt32}`,
        { id },
      );
      if (!members || members.deleted === 1 || members.account_id !== accountId) {
        throw notFound("Campaign not found.");
      }
      const period = periodOf(query);
      const ids = members.link_ids.slice(0, CAMPAIGN_LINKS_MAX);
      const links = [];
      for (const [i, link_id] of ids.entries()) {
        const short_code = members.short_codes[i] ?? "";
        const stats = await linkStats(ch, { link_id, account_id: accountId, short_code }, period, "day");
        links.push({ link_id, short_code, total_clicks: stats.total_clicks });
      }
      return v1Success({
        campaign_id: id,
        total_clicks: links.reduce((sum, l) => sum + l.total_clicks, 0),
        links,
      });
    }),
  ];
}
