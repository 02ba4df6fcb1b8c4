// GET /api/v1/exports/analytics (docs/import-export.md): the account's clicks per link and UTC day, or
// per link, day and value of one dimension, as CSV. Rows come from the daily rollups (decision 0007)
// and stream from ClickHouse through to the response, so ten million clicks cost no more memory than
// ten. Days are whole UTC days: a start or end with a time of day counts from its day.
import { Readable } from "node:stream";
import type { KurzClickHouse } from "@kurz/clickhouse";
import type { ExportAnalyticsQuery, ExportDimension } from "@kurz/contracts";
import { csvLine } from "@kurz/service-kit";

const day = (input: string) => input.slice(0, 10);

interface Filter {
  where: string;
  params: Record<string, unknown>;
}

function filterOf(accountId: string, query: ExportAnalyticsQuery): Filter {
  const params: Record<string, unknown> = { account: accountId };
  let where = "account_id = {account:UUID}";
  if (query.link_id !== undefined) {
    where += " AND link_id = {link:UUID}";
    params.link = query.link_id;
  }
  if (query.start !== undefined) {
    where += " AND day >= {from:Date}";
    params.from = day(query.start);
  }
  if (query.end !== undefined) {
    where += " AND day <= {to:Date}";
    params.to = day(query.end);
  }
  return { where, params };
}

// The link dimension names each link; a link whose deletion has been applied drops out (its clicks
// are being removed too). A link the dimension has not heard of yet keeps its rows with no code.
const LINKS = `(SELECT link_id, short_code, deleted FROM links FINAL WHERE account_id = {account:UUID}) AS l`;

function sqlFor(dimension: ExportDimension, f: Filter): string {
  if (dimension === "none") {
    return `SELECT toString(d.link_id) AS link_id, l.short_code AS short_code, toString(d.day) AS day,
        d.clicks AS clicks, d.bot_clicks AS bot_clicks
      FROM (SELECT link_id, day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks FROM link_daily
            WHERE ${f.where} GROUP BY link_id, day) AS d
      LEFT JOIN ${LINKS} ON d.link_id = l.link_id
      WHERE l.deleted = 0
      ORDER BY d.link_id, d.day`;
  }
  // link_dim_daily has no account column: the account's links are those of its link_daily rows.
  const days = f.where.replace(/account_id = \{account:UUID\}( AND )?/, "");
  return `SELECT toString(d.link_id) AS link_id, l.short_code AS short_code, toString(d.day) AS day,
      d.value AS value, d.country AS country, d.clicks AS clicks
    FROM (SELECT link_id, day, value, country, sum(clicks) AS clicks FROM link_dim_daily
          WHERE dim = {dim:String}${days ? ` AND ${days}` : ""}
            AND link_id IN (SELECT DISTINCT link_id FROM link_daily WHERE ${f.where})
          GROUP BY link_id, day, value, country HAVING clicks > 0) AS d
    LEFT JOIN ${LINKS} ON d.link_id = l.link_id
    WHERE l.deleted = 0
    ORDER BY d.link_id, d.day, d.value, d.country`;
}

export function exportAnalytics(
  ch: KurzClickHouse,
  accountId: string,
  query: ExportAnalyticsQuery,
): Readable {
  const dimension = query.dimension ?? "none";
  const f = filterOf(accountId, query);
  const sql = sqlFor(dimension, f);
  const params = dimension === "none" ? f.params : { ...f.params, dim: dimension };
  async function* lines() {
    if (dimension === "none") {
      yield csvLine(["link_id", "short_code", "day", "clicks", "bot_clicks"]);
      for await (const r of ch.queryRows<Record<string, unknown>>(sql, params)) {
        yield csvLine([r.link_id, r.short_code, r.day, r.clicks, r.bot_clicks]);
      }
    } else {
      yield csvLine(["link_id", "short_code", "day", "dimension", "value", "country", "clicks"]);
      for await (const r of ch.queryRows<Record<string, unknown>>(sql, params)) {
        yield csvLine([r.link_id, r.short_code, r.day, dimension, r.value, r.country, r.clicks]);
      }
    }
  }
  return Readable.from(lines());
}
