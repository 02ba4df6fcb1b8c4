// Migration 0009: link_daily's projection of all-time totals per account and link. The aggregates the
// account summary and the click-totals publisher run are answered from it (EXPLAIN names it), and its
// answers are link_daily's own through what changes that table: clicks inserted twice under one
// deduplication token (decision 0049), a link's clicks deleted (the links consumer), merges.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { useMigratedChDb } from "./migrated-chdb.ts";

const chdb = useMigratedChDb();

/** The summary's ranking and total, and the click-totals publisher's per-link sums, as they query. */
const RANKED = `SELECT toString(link_id) AS id, toUInt64(sum(clicks)) AS clicks FROM link_daily
  WHERE account_id = {account:UUID} GROUP BY link_id HAVING clicks > 0 ORDER BY clicks DESC, id`;
const TOTAL = `SELECT toUInt64(sum(clicks)) AS clicks FROM link_daily
  WHERE account_id = {account:UUID} AND link_id NOT IN {deleted:Array(UUID)}`;
const PER_LINK = `SELECT toString(link_id) AS link, toUInt64(sum(clicks)) AS total FROM link_daily
  WHERE account_id IN {accounts:Array(UUID)} AND link_id IN {links:Array(UUID)} GROUP BY account_id, link_id
  ORDER BY link`;

/** The table each query reads: the projection's name when ClickHouse answers from it. */
async function readsFrom(sql: string, params: Record<string, unknown>): Promise<string[]> {
  const plan = await chdb().query<{ explain: string }>(`EXPLAIN ${sql}`, params);
  return plan.flatMap((r) => /ReadFromMergeTree \(([^)]+)\)/.exec(r.explain)?.[1] ?? []);
}

/** Inserts rows into link_daily with a deduplication token, as the rollup chain does. */
async function insertDays(token: string, rows: [string, string, string, number][]): Promise<void> {
  await chdb().raw.insert({
    table: `link_daily (account_id, link_id, day, clicks, bot_clicks) SETTINGS insert_deduplicate = 1, insert_deduplication_token = '${token}'`,
    values: rows.map(([account, link, day, clicks]) => [account, link, day, clicks, 0]),
    format: "JSONCompactEachRow",
  });
}

describe("link_daily's all-time totals per link (projection link_totals)", () => {
  it("answers the summary's and the click totals' aggregates, equal to the days summed, through dedup, deletes and merges", async () => {
    const [account, other] = [randomUUID(), randomUUID()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    // Days in three months (three partitions), in several inserts (several parts).
    await insertDays("t1", [
      [account, a, "2026-09-30", 4],
      [account, a, "2026-10-01", 1],
      [account, b, "2026-10-15", 7],
    ]);
    await insertDays("t2", [
      [account, a, "2026-11-20", 2],
      [account, c, "2026-11-21", 3],
      [other, randomUUID(), "2026-11-21", 50],
    ]);
    // The same block again under its token: dropped, from the table and its projection alike.
    await insertDays("t2", [
      [account, a, "2026-11-20", 2],
      [account, c, "2026-11-21", 3],
      [other, randomUUID(), "2026-11-21", 50],
    ]);
    const params = { account, deleted: [c], accounts: [account], links: [a, b, c] };
    for (const sql of [RANKED, TOTAL, PER_LINK])
      expect(await readsFrom(sql, params)).toEqual(["link_totals"]);

    const ranked = [
      { id: b, clicks: 7 },
      { id: a, clicks: 7 },
      { id: c, clicks: 3 },
    ].sort((x, y) => y.clicks - x.clicks || x.id.localeCompare(y.id));
    expect(await chdb().query(RANKED, params)).toEqual(ranked);
    expect(await chdb().query(TOTAL, params)).toEqual([{ clicks: 14 }]);
    const perLink = [
      { link: a, total: 7 },
      { link: b, total: 7 },
      { link: c, total: 3 },
    ].sort((x, y) => x.link.localeCompare(y.link));
    expect(await chdb().query(PER_LINK, params)).toEqual(perLink);

    // A deleted link's clicks go (the links consumer's statement); the projection is rebuilt with them.
    await chdb().command("DELETE FROM link_daily WHERE link_id IN {ids:Array(UUID)}", { ids: [b] });
    expect(await chdb().query(RANKED, params)).toEqual(ranked.filter((r) => r.id !== b));
    expect(await readsFrom(RANKED, params)).toEqual(["link_totals"]);

    // Merged, a SummingMergeTree's rows add up; the projection is rebuilt and answers the same.
    await chdb().command("OPTIMIZE TABLE link_daily FINAL");
    expect(await chdb().query(RANKED, params)).toEqual(ranked.filter((r) => r.id !== b));
    expect(await chdb().query(TOTAL, params)).toEqual([{ clicks: 7 }]);
    expect(await readsFrom(TOTAL, params)).toEqual(["link_totals"]);
    const [parts] = await chdb().query<{ n: number }>(
      "SELECT toUInt32(count()) AS n FROM system.projection_parts WHERE database = currentDatabase() AND table = 'link_daily' AND name = 'link_totals' AND active",
    );
    expect(parts!.n).toBeGreaterThan(0);
  });
});
