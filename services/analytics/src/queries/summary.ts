// The account summary (SPEC 2.6): link counts from the link dimension, clicks from the daily rollup.
// total_clicks and top_links cover all time; clicks_over_time follows the period when one is given.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type AnalyticsSummary, SUMMARY_TOP_LINKS } from "@kurz/contracts";
import { type Period, periodSql } from "./period.ts";

export async function accountSummary(
  ch: KurzClickHouse,
  accountId: string,
  period: Period | null,
): Promise<AnalyticsSummary> {
  const p = periodSql(period);
  const params = {
    ...p.params,
    account: accountId,
    // Days of the whole period: the raw read needs only links that had clicks then.
    period_from: period?.from.toISOString().slice(0, 10) ?? "1970-01-01",
    period_to: period?.to.toISOString().slice(0, 10) ?? "1970-01-01",
  };
  const parts = [
    p.rollups
      ? `SELECT day, sum(clicks) AS clicks FROM link_daily WHERE account_id = {account:UUID}${p.daysFilter} GROUP BY day`
      : null,
    // clicks is ordered by link, not account: name the account's links to read only theirs.
    p.edgesFilter !== null
      ? `SELECT toDate(ts) AS day, count() AS clicks FROM clicks FINAL
         WHERE link_id IN (SELECT link_id FROM link_daily WHERE account_id = {account:UUID}
                           AND day >= {period_from:Date} AND day <= {period_to:Date})
           AND account_id = {account:UUID} AND is_bot = 0${p.edgesFilter}
         GROUP BY day`
      : null,
  ].filter(Boolean);

  const [links, totals, series, top] = await Promise.all([
    ch.query<{ total: number; active: number }>(
      `SELECT count() AS total,
              countIf(is_active = 1 AND (expires_at IS NULL OR expires_at > now64(3))) AS active
       FROM links FINAL WHERE account_id = {account:UUID} AND deleted = 0`,
      params,
    ),
    ch.query<{ clicks: number }>(
      "SELECT toUInt64(sum(clicks)) AS clicks FROM link_daily WHERE account_id = {account:UUID}",
      params,
    ),
    parts.length > 0
      ? ch.query<{ date: string; clicks: number }>(
          `SELECT toString(day) AS date, sum(clicks) AS clicks FROM (${parts.join(" UNION ALL ")})
           GROUP BY day HAVING clicks > 0 ORDER BY day`,
          params,
        )
      : [],
    // A few extra candidates, in case the best ones are not in the dimension (yet, or any more).
    ch.query<{ id: string; short_code: string; original_url: string; title: string; clicks: number }>(
      `SELECT toString(t.link_id) AS id, l.short_code AS short_code, l.original_url AS original_url,
              l.title AS title, t.clicks AS clicks
       FROM (SELECT link_id, sum(clicks) AS clicks FROM link_daily WHERE account_id = {account:UUID}
             GROUP BY link_id HAVING clicks > 0 ORDER BY clicks DESC, link_id LIMIT ${SUMMARY_TOP_LINKS * 2}) AS t
       INNER JOIN (SELECT link_id, short_code, original_url, title FROM links FINAL
                   WHERE account_id = {account:UUID} AND deleted = 0) AS l ON l.link_id = t.link_id
       ORDER BY clicks DESC, id LIMIT ${SUMMARY_TOP_LINKS}`,
      params,
    ),
  ]);

  return {
    total_links: Number(links[0]?.total ?? 0),
    active_links: Number(links[0]?.active ?? 0),
    total_clicks: Number(totals[0]?.clicks ?? 0),
    clicks_over_time: series.map((r) => ({ date: r.date, count: Number(r.clicks) })),
    top_links: top.map((r) => ({
      id: r.id,
      short_code: r.short_code,
      original_url: r.original_url,
      title: r.title,
      clicks_count: Number(r.clicks),
    })),
  };
}
