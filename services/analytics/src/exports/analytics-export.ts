// GET /api/v1/exports/analytics (docs/import-export.md): the account's clicks per link and UTC day, or
// per link, day and value of one dimension, as CSV. Rows come from the daily rollups (link_daily;
// link_stats' day rows for a dimension, decision 0048) and stream from ClickHouse through to the
// response, so ten million clicks cost no more memory than ten. Days are whole UTC days: a start or
// end with a time of day counts from its day.
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

// A dimension's rows per link and day: the breakdown rows of link_stats' day level (decision 0048),
// in the columns of a per-dimension daily rollup. It has no account column: see dimWhere.
const DIM_DAYS = `(SELECT link_id, toDate(t) AS day, toString(a) AS dim, b AS value, toString(c) AS country, n AS clicks
  FROM link_stats WHERE level = 'day' AND kind = 'd')`;

// Destinations per link and day in the same columns: link_stats holds a row only for clicks not sent
// to the default (migrations/0012_click_destination.sql), so the default's is the day's human clicks
// (link_daily) less the others'. Summed by the reader, as every rollup is.
const DESTINATION_DAYS = `(SELECT link_id, day, 'destination' AS dim, value, '' AS country, clicks FROM (
    SELECT link_id, toDate(t) AS day, b AS value, toInt64(n) AS clicks
      FROM link_stats WHERE level = 'day' AND kind = 'd' AND a = 'destination'
    UNION ALL SELECT link_id, toDate(t) AS day, 'default' AS value, -toInt64(n) AS clicks
      FROM link_stats WHERE level = 'day' AND kind = 'd' AND a = 'destination'
    UNION ALL SELECT link_id, day, 'default' AS value, toInt64(clicks) AS clicks
      FROM link_daily WHERE account_id = {account:UUID}))`;

const dimDays = (dimension: ExportDimension) => (dimension === "destination" ? DESTINATION_DAYS : DIM_DAYS);

// The link dimension names each link; a link whose deletion has been applied drops out (its clicks
// are being removed too). A link the dimension has not heard of yet keeps its rows with no code. Only
// the query's own links are read, so the join's table is as small as the query.
const LINKS = `(SELECT link_id, short_code, deleted FROM links FINAL
  WHERE account_id = {account:UUID} AND link_id IN {ids:Array(UUID)}) AS l`;

/** One query of the export: some links, or one link's range of days. */
interface Page {
  ids: string[];
  from?: string;
  to?: string;
}

/** `where` narrowed to a page: its links, and its days when it is part of one link's rows. */
function pageWhere(where: string, page: Page): string {
  let w = `${where} AND link_id IN {ids:Array(UUID)}`;
  if (page.from !== undefined) w += " AND day >= {pageFrom:Date} AND day <= {pageTo:Date}";
  return w;
}

function sqlFor(dimension: ExportDimension, f: Filter, page: Page): string {
  if (dimension === "none") {
    return `SELECT toString(d.link_id) AS link_id, l.short_code AS short_code, toString(d.day) AS day,
        d.clicks AS clicks, d.bot_clicks AS bot_clicks
      FROM (SELECT link_id, day, sum(clicks) AS clicks, sum(bot_clicks) AS bot_clicks FROM link_daily
            WHERE ${pageWhere(f.where, page)} GROUP BY link_id, day) AS d
      LEFT JOIN ${LINKS} ON d.link_id = l.link_id
      WHERE l.deleted = 0
      ORDER BY d.link_id, d.day`;
  }
  // The dimension's rows have no account column: a page's links are the account's (they were listed
  // from its link_daily rows), so the page's ids are the account filter here.
  return `SELECT toString(d.link_id) AS link_id, l.short_code AS short_code, toString(d.day) AS day,
      d.value AS value, d.country AS country, d.clicks AS clicks
    FROM (SELECT link_id, day, value, country, sum(clicks) AS clicks FROM ${dimDays(dimension)}
          WHERE dim = {dim:String} AND ${pageWhere(dimWhere(f), page)}
          GROUP BY link_id, day, value, country HAVING clicks > 0) AS d
    LEFT JOIN ${LINKS} ON d.link_id = l.link_id
    WHERE l.deleted = 0
    ORDER BY d.link_id, d.day, d.value, d.country`;
}

/** The filter without its account condition, for DIM_DAYS (which has no account column). */
function dimWhere(f: Filter): string {
  return f.where.replace(/account_id = \{account:UUID\}( AND )?/, "") || "1";
}

/**
 * Rollup rows (before SummingMergeTree's merges, so at least the rows a query returns) that one query
 * may read. This bounds what ClickHouse aggregates, joins and sorts for a query, and so the export's
 * memory, whatever the account's size or the clicks per link: a fixed number of links per query grew
 * with the clicks per link (+107 MB RSS at 10M clicks by referrer with 100 links a query, +45 MB with
 * pages of this size; docs/benchmarks/2026-11.md, "import and export").
 */
export const ROWS_PER_QUERY = 20_000;

/**
 * The export's pages, in link order: consecutive links whose rollup rows add up to at most `budget`,
 * and a link with more than that alone, cut into ranges of days of at most `budget` rows (a single day
 * over the budget is a page of its own). Reads one count per link, and one per day for such a link.
 */
async function* pagesOf(
  ch: KurzClickHouse,
  dimension: ExportDimension,
  f: Filter,
  budget: number,
): AsyncGenerator<Page> {
  const table = dimension === "none" ? "link_daily" : dimDays(dimension);
  const where =
    dimension === "none"
      ? f.where
      : `dim = {dim:String} AND ${dimWhere(f)}
         AND link_id IN (SELECT DISTINCT link_id FROM link_daily WHERE ${f.where})`;
  const params = dimension === "none" ? f.params : { ...f.params, dim: dimension };
  // Named `id` and `d`: an alias `link_id` or `day` would shadow the column in WHERE (ClickHouse resolves aliases there).
  // One row per link: the account's size, never its clicks.
  const links = await ch.query<{ id: string; n: string | number }>(
    `SELECT toString(link_id) AS id, count() AS n FROM ${table} WHERE ${where}
     GROUP BY link_id ORDER BY link_id`,
    params,
  );
  let ids: string[] = [];
  let rows = 0;
  for (const link of links) {
    const n = Number(link.n);
    if (ids.length > 0 && rows + n > budget) {
      yield { ids };
      ids = [];
      rows = 0;
    }
    if (n <= budget) {
      ids.push(link.id);
      rows += n;
      continue;
    }
    const days = await ch.query<{ d: string; n: string | number }>(
      `SELECT toString(day) AS d, count() AS n FROM ${table}
       WHERE ${where} AND link_id = {one:UUID} GROUP BY day ORDER BY day`,
      { ...params, one: link.id },
    );
    let from: string | undefined;
    let to = "";
    let inRange = 0;
    for (const d of days) {
      const dn = Number(d.n);
      if (from !== undefined && inRange + dn > budget) {
        yield { ids: [link.id], from, to };
        from = undefined;
        inRange = 0;
      }
      from ??= d.d;
      to = d.d;
      inRange += dn;
    }
    if (from !== undefined) yield { ids: [link.id], from, to };
  }
  if (ids.length > 0) yield { ids };
}

export function exportAnalytics(
  ch: KurzClickHouse,
  accountId: string,
  query: ExportAnalyticsQuery,
  options: { rowsPerQuery?: number } = {},
): Readable {
  const dimension = query.dimension ?? "none";
  const f = filterOf(accountId, query);
  // The whole account in one query made ClickHouse aggregate and sort every row before the first one
  // came out (+750 MB at 2M clicks by referrer): the export runs page by page instead (pagesOf), each
  // query's state bounded by ROWS_PER_QUERY rollup rows, so memory grows with neither the account nor
  // its clicks.
  const base = dimension === "none" ? f.params : { ...f.params, dim: dimension };
  async function* lines() {
    yield csvLine(
      dimension === "none"
        ? ["link_id", "short_code", "day", "clicks", "bot_clicks"]
        : ["link_id", "short_code", "day", "dimension", "value", "country", "clicks"],
    );
    for await (const page of pagesOf(ch, dimension, f, options.rowsPerQuery ?? ROWS_PER_QUERY)) {
      const params =
        page.from === undefined
          ? { ...base, ids: page.ids }
          : { ...base, ids: page.ids, pageFrom: page.from, pageTo: page.to };
      for await (const r of ch.queryRows<Record<string, unknown>>(sqlFor(dimension, f, page), params)) {
        yield dimension === "none"
          ? csvLine([r.link_id, r.short_code, r.day, r.clicks, r.bot_clicks])
          : csvLine([r.link_id, r.short_code, r.day, dimension, r.value, r.country, r.clicks]);
      }
    }
  }
  return Readable.from(lines());
}
