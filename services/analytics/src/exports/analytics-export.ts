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

/** Links per query: bounds ClickHouse's GROUP BY, JOIN and ORDER BY state, whatever the account's size. */
const LINKS_PER_QUERY = 100;

export function exportAnalytics(
  ch: KurzClickHouse,
  accountId: string,
  query: ExportAnalyticsQuery,
): Readable {
  const dimension = query.dimension ?? "none";
  const f = filterOf(accountId, query);
  // The whole account in one query made ClickHouse aggregate and sort every row before the first one
  // came out (+750 MB at 2M clicks by referrer): the export runs link by link range instead, each
  // query's state bounded by LINKS_PER_QUERY links, so memory does not grow with the account.
  const chunk = { ...f, where: `${f.where} AND link_id IN {ids:Array(UUID)}` };
  const sql = sqlFor(dimension, chunk);
  const base = dimension === "none" ? f.params : { ...f.params, dim: dimension };
  async function* lines() {
    const ids =
      // Named `id`: an alias `link_id` would shadow the column in WHERE (ClickHouse resolves aliases there).
      (
        await ch.query<{ id: string }>(
          `SELECT DISTINCT toString(link_id) AS id FROM link_daily WHERE ${f.where} ORDER BY id`,
          f.params,
        )
      ).map((r) => r.id);
    yield csvLine(
      dimension === "none"
        ? ["link_id", "short_code", "day", "clicks", "bot_clicks"]
        : ["link_id", "short_code", "day", "dimension", "value", "country", "clicks"],
    );
    for (let i = 0; i < ids.length; i += LINKS_PER_QUERY) {
      const params = { ...base, ids: ids.slice(i, i + LINKS_PER_QUERY) };
      for await (const r of ch.queryRows<Record<string, unknown>>(sql, params)) {
        yield dimension === "none"
          ? csvLine([r.link_id, r.short_code, r.day, r.clicks, r.bot_clicks])
          : csvLine([r.link_id, r.short_code, r.day, dimension, r.value, r.country, r.clicks]);
      }
    }
  }
  return Readable.from(lines());
}
