// The account summary's unique visitors: distinct visitors over the period, counted the way one link's
// analytics counts them (link-stats.ts), from the same visitor rows of link_stats: visitor hashes are
// salted per UTC day, so each day's hashes form one set, here across all of the account's links (one
// person who opens three of its links on a day is one visitor), and days add up. Bots have no visitor
// rows; links deleted in management but not yet in analytics are left out as in the summary's clicks.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { levelRanges, type Period } from "./period.ts";

const DAY_MS = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function accountUniqueVisitors(
  ch: KurzClickHouse,
  accountId: string,
  period: Period | null,
  deletedLinkIds: readonly string[],
): Promise<number> {
  const r = period ? levelRanges(period, "day", "v") : null;
  // link_stats is keyed by link: name the account's links that had clicks on the period's days
  // (link_daily is sorted by account first), so only their rows are read.
  const linkDays = period ? " AND day >= {v_from:Date} AND day <= {v_to:Date}" : "";
  const notDeleted = deletedLinkIds.length > 0 ? " AND link_id NOT IN {deleted:Array(UUID)}" : "";
  const ofAccount = `link_id IN (SELECT link_id FROM link_daily WHERE account_id = {account:UUID}${linkDays})${notDeleted}`;
  const parts = [
    `SELECT toDate(t) AS day, vs FROM link_stats
     WHERE ${ofAccount} AND kind = 'v' AND ${r ? r.where : "level = 'day'"}`,
    // Partial hours older than link_stats' click rows: from raw clicks (a copy of a click adds no
    // visitor, so no copy check is needed).
    r?.clicksWhere
      ? `SELECT toDate(ts) AS day, [visitor_hash] AS vs FROM clicks
         WHERE ${ofAccount} AND account_id = {account:UUID} AND is_bot = 0 AND ${r.clicksWhere}`
      : null,
  ].filter((q): q is string => q !== null);
  const rows = await ch.query<{ visitors: number }>(
    `SELECT toUInt64(sum(v)) AS visitors
     FROM (SELECT day, uniqExactArray(vs) AS v FROM (${parts.join(" UNION ALL ")}) GROUP BY day)`,
    {
      ...r?.params,
      account: accountId,
      deleted: deletedLinkIds,
      ...(period
        ? {
            v_from: date(period.from.getTime()),
            v_to: date(Math.floor(period.to.getTime() / DAY_MS) * DAY_MS),
          }
        : {}),
    },
  );
  return Number(rows[0]?.visitors ?? 0);
}
