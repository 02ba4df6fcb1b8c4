// The account summary (docs/analytics.md). Management gives the link counts, which top links are still there
// (with their current code, title and destination) and the links deleted recently; the rollups give
// the clicks, without those deleted links whose deletion the link consumer has not applied yet.
// total_clicks and top_links cover all time; clicks_over_time and unique_visitors (summary-visitors.ts)
// follow the period when one is given.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type AnalyticsSummary, LINKS_SUMMARY_MAX_CANDIDATES, SUMMARY_TOP_LINKS } from "@kurz/contracts";
import type { LinkDirectory } from "../management-links.ts";
import { type Interval, seriesOf } from "./link-stats.ts";
import { type Period, periodSql, rawClicks } from "./period.ts";
import { accountUniqueVisitors } from "./summary-visitors.ts";

/**
 * Top links are picked among this many of the most clicked: candidates deleted in management but not
 * yet in analytics drop out, and the rest must still fill the list.
 */
const CANDIDATES = Math.min(SUMMARY_TOP_LINKS * 4, LINKS_SUMMARY_MAX_CANDIDATES);

export async function accountSummary(
  deps: { ch: KurzClickHouse; links: Pick<LinkDirectory, "linksSummary"> },
  accountId: string,
  period: Period | null,
  interval: Interval = "day",
): Promise<AnalyticsSummary> {
  const { ch } = deps;
  const ranked = await ch.query<{ id: string; clicks: number }>(
    `SELECT toString(link_id) AS id, sum(clicks) AS clicks FROM link_daily WHERE account_id = {account:UUID}
     GROUP BY link_id HAVING clicks > 0 ORDER BY clicks DESC, id LIMIT ${CANDIDATES}`,
    { account: accountId },
  );
  const known = await deps.links.linksSummary(
    accountId,
    ranked.map((r) => r.id),
  );

  const s = periodSql(period, interval);
  const params = { ...s.params, account: accountId, deleted: known.deleted_link_ids };
  const notDeleted = known.deleted_link_ids.length > 0 ? " AND link_id NOT IN {deleted:Array(UUID)}" : "";
  const bucket =
    interval === "day"
      ? { hour: "toDate(hour)", ts: "toDate(ts)" }
      : { hour: "hour", ts: "toDateTime(toStartOfHour(ts), 'UTC')" };
  const parts = [
    s.days !== null
      ? `SELECT day AS bucket, sum(clicks) AS clicks FROM link_daily
         WHERE account_id = {account:UUID}${notDeleted}${s.days} GROUP BY day`
      : null,
    s.hours !== null
      ? `SELECT ${bucket.hour} AS bucket, sum(clicks) AS clicks FROM link_hourly
         WHERE account_id = {account:UUID}${notDeleted}${s.hours} GROUP BY bucket`
      : null,
    // clicks is ordered by link, not account: name the account's links that had clicks in those
    // hours, so that only theirs are read.
    s.raw !== null
      ? `SELECT ${bucket.ts} AS bucket, count() AS clicks
         FROM (${rawClicks(
           "ts",
           `link_id IN (SELECT link_id FROM link_hourly WHERE account_id = {account:UUID}${s.rawHours})
            AND account_id = {account:UUID} AND is_bot = 0${notDeleted}${s.raw}`,
         )})
         GROUP BY bucket`
      : null,
  ].filter(Boolean);

  const [totals, series, uniqueVisitors] = await Promise.all([
    ch.query<{ clicks: number }>(
      `SELECT toUInt64(sum(clicks)) AS clicks FROM link_daily WHERE account_id = {account:UUID}${notDeleted}`,
      params,
    ),
    parts.length > 0
      ? ch.query<{ bucket: string; clicks: number }>(
          `SELECT toString(bucket) AS bucket, sum(clicks) AS clicks FROM (${parts.join(" UNION ALL ")})
           GROUP BY bucket HAVING clicks > 0 ORDER BY bucket`,
          params,
        )
      : [],
    accountUniqueVisitors(ch, accountId, period, known.deleted_link_ids),
  ]);

  // A candidate management does not list is gone (or another account's): never shown.
  const live = new Map(known.links.map((l) => [l.id, l]));
  const top = ranked.flatMap((r) => {
    const link = live.get(r.id);
    return link ? [{ ...link, clicks_count: Number(r.clicks) }] : [];
  });

  return {
    total_links: known.total_links,
    active_links: known.active_links,
    total_clicks: Number(totals[0]?.clicks ?? 0),
    unique_visitors: uniqueVisitors,
    clicks_over_time: seriesOf(series, interval),
    top_links: top.slice(0, SUMMARY_TOP_LINKS),
  };
}
