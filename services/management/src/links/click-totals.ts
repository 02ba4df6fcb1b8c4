// Applies the click totals analytics publishes to links.clicks_count and accounts.total_clicks.
// Totals are absolute and only grow, so a link keeps the larger of its stored and received count:
// a redelivered or out-of-order message changes nothing. An account's total is the sum over its
// links, the same figure the analytics summary reports (clicks of deleted links go with them).
import type { EventBus, Subscription } from "@kurz/bus";
import { ClickTotals, TOPICS } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Logger } from "@kurz/service-kit";

export function subscribeClickTotals(deps: {
  bus: EventBus;
  prisma: PrismaClient;
  logger: Logger;
}): Promise<Subscription> {
  return deps.bus.subscribe<unknown>({
    topic: TOPICS.clickTotals,
    group: "management-click-totals",
    maxBatchSize: 200,
    handler: async (messages) => {
      // One update for the whole batch, with the largest total seen per link.
      const latest = new Map<string, { account: string; clicks: number }>();
      for (const m of messages) {
        const parsed = ClickTotals.safeParse(m.value);
        if (!parsed.success) {
          deps.logger.warn({ id: m.id }, "skipped a click-totals message this version cannot read");
          continue;
        }
        for (const t of parsed.data.totals) {
          const seen = latest.get(t.link_id);
          if (!seen || seen.clicks < t.clicks)
            latest.set(t.link_id, { account: t.account_id, clicks: t.clicks });
        }
      }
      await applyClickTotals(deps.prisma, latest);
    },
  });
}

/**
 * Sets each link's count to the larger of stored and received, then its account's total. The accounts
 * are locked first, in id order, before any of their links, as leaving for good locks a person's
 * workspaces before it deletes their links: in the opposite order the two deadlocked, and Postgres
 * aborted one of them (test/click-totals-lock-order.test.ts).
 */
export async function applyClickTotals(
  prisma: PrismaClient,
  latest: ReadonlyMap<string, { account: string; clicks: number }>,
): Promise<void> {
  if (latest.size === 0) return;
  const links = [...latest.keys()];
  const accounts = links.map((id) => latest.get(id)!.account);
  const clicks = links.map((id) => String(latest.get(id)!.clicks));
  const touched = [...new Set(accounts)];
  await prisma.$transaction([
    prisma.$queryRaw`SELECT id FROM accounts WHERE id = ANY(${touched}::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
    prisma.$executeRaw`
      UPDATE links AS l SET clicks_count = v.clicks
      FROM unnest(${links}::uuid[], ${accounts}::uuid[], ${clicks}::bigint[]) AS v(id, account_id, clicks)
      WHERE l.id = v.id AND l.account_id = v.account_id AND l.clicks_count < v.clicks`,
    prisma.$executeRaw`
      UPDATE accounts AS a SET total_clicks = s.total
      FROM (SELECT account_id, SUM(clicks_count)::bigint AS total FROM links
            WHERE account_id = ANY(${touched}::uuid[]) GROUP BY account_id) AS s
      WHERE a.id = s.account_id AND a.total_clicks <> s.total`,
  ]);
}
