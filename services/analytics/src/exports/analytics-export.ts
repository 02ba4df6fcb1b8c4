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

// The account's exported links with their codes, from the link dimension: a link whose deletion has
// been applied drops out (its clicks are being removed too); a link the dimension has not heard of yet
// keeps its rows with no code. Named `id`/`code`: an alias `link_id` would shadow the column in WHERE
// (ClickHouse resolves aliases there).
function linksSql(f: Filter): string {
  return `SELECT toString(d.link_id) AS id, l.short_code AS code
    FROM (SELECT DISTINCT link_id FROM link_daily WHERE ${f.where}) AS d
    LEFT JOIN (SELECT link_id, short_code, deleted FROM links FINAL WHERE account_id = {account:UUID}) AS l
      ON d.link_id = l.link_id
    WHERE l.deleted = 0
    ORDER BY d.link_id`;
}

// One chunk's rows straight from a rollup, grouped by a prefix of the rollup's sorting key (`dim` is
// fixed by WHERE) with aggregation in order, so the GROUP BY streams over the parts' sorted rows instead
// of holding a hash table of the chunk's groups; the short codes are joined in Node from linksSql's
// answer rather than once per chunk in ClickHouse. ClickHouse still sorts a chunk's groups (EXPLAIN
// PIPELINE shows a MergeSortingTransform after the in-order aggregation), so a chunk's rows are what
// it holds.
function sqlFor(dimension: ExportDimension, f: Filter): string {
  if (dimension === "none") {
    return `SELECT toString(link_id) AS link, toString(day) AS date, sum(clicks) AS human, sum(bot_clicks) AS bots
      FROM link_daily WHERE ${f.where}
      GROUP BY account_id, link_id, day
      ORDER BY account_id, link_id, day
      SETTINGS optimize_aggregation_in_order = 1`;
  }
  // link_dim_daily has no account column: the chunk's link ids are the account's (linksSql).
  const days = f.where.replace(/account_id = \{account:UUID\}( AND )?/, "");
  return `SELECT toString(link_id) AS link, toString(day) AS date, value, country, sum(clicks) AS human
    FROM link_dim_daily
    WHERE dim = {dim:String}${days ? ` AND ${days}` : ""}
    GROUP BY link_id, dim, day, value, country
    HAVING human > 0
    ORDER BY link_id, dim, day, value, country
    SETTINGS optimize_aggregation_in_order = 1`;
}

/** Links per query: bounds each query's work, whatever the account's size. */
const LINKS_PER_QUERY = 100;

export function exportAnalytics(
  ch: KurzClickHouse,
  accountId: string,
  query: ExportAnalyticsQuery,
): Readable {
  const dimension = query.dimension ?? "none";
  const f = filterOf(accountId, query);
  // The whole account in one query made ClickHouse aggregate and sort every row before the first one
  // came out (+750 MB at 2M clicks by referrer): the export runs link range by link range.
  const chunk = { ...f, where: `${f.where} AND link_id IN {ids:Array(UUID)}` };
  const sql = sqlFor(dimension, chunk);
  const base = dimension === "none" ? f.params : { ...f.params, dim: dimension };
  async function* lines() {
    const links = await ch.query<{ id: string; code: string }>(linksSql(f), f.params);
    const codes = new Map(links.map((l) => [l.id, l.code]));
    yield csvLine(
      dimension === "none"
        ? ["link_id", "short_code", "day", "clicks", "bot_clicks"]
        : ["link_id", "short_code", "day", "dimension", "value", "country", "clicks"],
    );
    for (let i = 0; i < links.length; i += LINKS_PER_QUERY) {
      const params = { ...base, ids: links.slice(i, i + LINKS_PER_QUERY).map((l) => l.id) };
      for await (const r of ch.queryRows<Record<string, string | number>>(sql, params)) {
        const code = codes.get(r.link as string);
        yield dimension === "none"
          ? csvLine([r.link, code, r.date, r.human, r.bots])
          : csvLine([r.link, code, r.date, dimension, r.value, r.country, r.human]);
      }
    }
  }
  return Readable.from(lines());
}
