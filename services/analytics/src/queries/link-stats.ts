// One link's analytics (SPEC 2.5 plus bot_clicks and unique_visitors), from the daily rollups and,
// for partial days at the ends of a period, from raw clicks. Bots are excluded from every count.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type LinkAnalytics, TOP_LIST_SIZE } from "@kurz/contracts";
import { type Period, periodSql } from "./period.ts";

export interface LinkRef {
  link_id: string;
  account_id: string;
  short_code: string;
}

type Dim = "referrer" | "country" | "city" | "device" | "browser" | "os";

// The same breakdown the link_dim_daily view makes (migration 0002), for raw clicks. Source columns
// are renamed first so that no output alias (country) can shadow the column it is computed from.
const rawDimensions = (where: string) => `
  SELECT tupleElement(d, 1) AS dim, tupleElement(d, 2) AS value, tupleElement(d, 3) AS country, count() AS clicks
  FROM (
    SELECT ifNull(referrer, '') AS src_referrer, toString(country) AS src_country, city AS src_city,
           toString(device_type) AS src_device, toString(browser) AS src_browser, toString(os) AS src_os
    FROM clicks FINAL WHERE ${where}
  )
  ARRAY JOIN [
    ('referrer', src_referrer, ''),
    ('country', src_country, ''),
    ('city', src_city, if(src_city = '', '', src_country)),
    ('device', src_device, ''),
    ('browser', src_browser, ''),
    ('os', src_os, '')
  ] AS d
  GROUP BY dim, value, country`;

export async function linkStats(
  ch: KurzClickHouse,
  link: LinkRef,
  period: Period | null,
): Promise<LinkAnalytics> {
  const p = periodSql(period);
  const params = { ...p.params, id: link.link_id, account: link.account_id };
  const union = (rollup: string, raw: string) => {
    const parts = [p.rollups ? rollup : null, p.edgesFilter !== null ? raw : null].filter(Boolean);
    return parts.length > 0 ? parts.join(" UNION ALL ") : null;
  };

  const daily = union(
    `SELECT day, sum(clicks) AS clicks, sum(bot_clicks) AS bots FROM link_daily
     WHERE account_id = {account:UUID} AND link_id = {id:UUID}${p.daysFilter} GROUP BY day`,
    // FINAL: raw clicks may still hold an unmerged copy of a redelivered click.
    `SELECT toDate(ts) AS day, countIf(is_bot = 0) AS clicks, countIf(is_bot = 1) AS bots FROM clicks FINAL
     WHERE link_id = {id:UUID}${p.edgesFilter} GROUP BY day`,
  );
  const dims = union(
    // Without a period, the all-time table holds the same sums in far fewer rows.
    `SELECT toString(dim) AS dim, value, toString(country) AS country, sum(clicks) AS clicks
     FROM ${period ? "link_dim_daily" : "link_dim_total"}
     WHERE link_id = {id:UUID}${p.daysFilter} GROUP BY dim, value, country`,
    rawDimensions(`link_id = {id:UUID} AND is_bot = 0${p.edgesFilter}`),
  );
  const visitors = union(
    `SELECT day, uniqExactMerge(visitors) AS visitors FROM link_visitors_daily
     WHERE link_id = {id:UUID}${p.daysFilter} GROUP BY day`,
    `SELECT toDate(ts) AS day, uniqExact(visitor_hash) AS visitors FROM clicks FINAL
     WHERE link_id = {id:UUID} AND is_bot = 0${p.edgesFilter} GROUP BY day`,
  );

  const [series, breakdown, uniques] = await Promise.all([
    daily
      ? ch.query<{ date: string; clicks: number; bots: number }>(
          `SELECT toString(day) AS date, sum(clicks) AS clicks, sum(bots) AS bots FROM (${daily})
           GROUP BY day ORDER BY day`,
          params,
        )
      : [],
    dims
      ? ch.query<{ dim: Dim; value: string; country: string; clicks: number }>(
          // Unknown values ('') are left out of the lists, except direct traffic among referrers.
          `SELECT dim, value, country, sum(clicks) AS clicks FROM (${dims})
           WHERE value != '' OR dim = 'referrer'
           GROUP BY dim, value, country HAVING clicks > 0
           ORDER BY dim, clicks DESC, value, country LIMIT ${TOP_LIST_SIZE} BY dim`,
          params,
        )
      : [],
    visitors
      ? ch.query<{ visitors: number }>(
          `SELECT toUInt64(sum(visitors)) AS visitors FROM (${visitors})`,
          params,
        )
      : [],
  ]);

  const of = (dim: Dim) => breakdown.filter((r) => r.dim === dim);
  const days = series.filter((r) => Number(r.clicks) > 0);
  return {
    link_id: link.link_id,
    short_code: link.short_code,
    total_clicks: days.reduce((n, r) => n + Number(r.clicks), 0),
    time_series: days.map((r) => ({ date: r.date, count: Number(r.clicks) })),
    referrers: of("referrer").map((r) => ({
      referrer: r.value === "" ? null : r.value,
      count: Number(r.clicks),
    })),
    countries: of("country").map((r) => ({ country: r.value, count: Number(r.clicks) })),
    cities: of("city").map((r) => ({ city: r.value, country: r.country, count: Number(r.clicks) })),
    devices: of("device").map((r) => ({
      device_type: r.value as LinkAnalytics["devices"][number]["device_type"],
      count: Number(r.clicks),
    })),
    browsers: of("browser").map((r) => ({ browser: r.value, count: Number(r.clicks) })),
    os: of("os").map((r) => ({ os: r.value, count: Number(r.clicks) })),
    bot_clicks: series.reduce((n, r) => n + Number(r.bots), 0),
    unique_visitors: Number(uniques[0]?.visitors ?? 0),
  };
}
