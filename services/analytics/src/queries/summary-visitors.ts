// The account summary's unique visitors: distinct visitors over the period, counted the way one link's
// analytics counts them (link-stats.ts): visitor hashes are salted per UTC day, so each day's hashes
// form one set, here across all of the account's links (one person who opens three of its links on a
// day is one visitor), and days add up. Bots are left out by the rollups themselves; links deleted in
// management but not yet in analytics are left out as in the summary's click counts.
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type Period, periodSql, rawClicks } from "./period.ts";

const DAY_MS = 86_400_000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function accountUniqueVisitors(
  ch: KurzClickHouse,
  accountId: string,
  period: Period | null,
  deletedLinkIds: readonly string[],
): Promise<number> {
  const p = periodSql(period, "day");
  // The visitor rollups are keyed by link alone: name the account's links that had clicks on the
  // period's days (link_daily is sorted by account first), so only their rows are read.
  const linkDays = period ? " AND day >= {v_from:Date} AND day <= {v_to:Date}" : "";
  const notDeleted = deletedLinkIds.length > 0 ? " AND link_id NOT IN {deleted:Array(UUID)}" : "";
  const ofAccount = `link_id IN (SELECT link_id FROM link_daily WHERE account_id = {account:UUID}${linkDays})${notDeleted}`;
  const parts = [
    p.days !== null ? `SELECT day, visitors FROM link_visitors_daily WHERE ${ofAccount}${p.days}` : null,
    p.hours !== null
      ? `SELECT toDate(hour) AS day, visitors FROM link_visitors_hourly WHERE ${ofAccount}${p.hours}`
      : null,
    p.raw !== null
      ? `SELECT toDate(ts) AS day, uniqExactState(visitor_hash) AS visitors
         FROM (${rawClicks("ts, visitor_hash", `${ofAccount} AND account_id = {account:UUID} AND is_bot = 0${p.raw}`)})
         GROUP BY day`
      : null,
  ].filter((q): q is string => q !== null);
  if (parts.length === 0) return 0;
  const rows = await ch.query<{ visitors: number }>(
    `SELECT toUInt64(sum(v)) AS visitors
     FROM (SELECT day, uniqExactMerge(visitors) AS v FROM (${parts.join(" UNION ALL ")}) GROUP BY day)`,
    {
      ...p.params,
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
