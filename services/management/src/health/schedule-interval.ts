// A workspace's check interval (accounts.health_check_interval, docs/health.md) as Postgres sees it, and
// what changing it does to the schedule of the workspace's links.
import type { Prisma } from "@kurz/db";

/**
 * The interval of the workspace aliased `a` as a SQL expression; null for `off`. One definition for the
 * claim, the reschedule after a check and the change of the setting.
 */
export const INTERVAL_OF_ACCOUNT = `(CASE a.health_check_interval
  WHEN 'hourly' THEN interval '1 hour'
  WHEN 'daily' THEN interval '1 day'
  WHEN 'weekly' THEN interval '7 days'
  ELSE NULL END)`;

/**
 * Re-times every link of the workspace for its interval: due one interval after its last check (at once
 * if never checked), or no longer scheduled (`off`). Runs in the transaction that changes the setting,
 * after the change.
 */
export async function rescheduleWorkspace(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$executeRawUnsafe(
    `UPDATE link_health_schedule s
     SET next_check_at = COALESCE(h.checked_at, '-infinity') + ${INTERVAL_OF_ACCOUNT}
     FROM links l JOIN accounts a ON a.id = l.account_id
       LEFT JOIN link_health h ON h.link_id = l.id
     WHERE l.account_id = $1::uuid AND s.link_id = l.id`,
    accountId,
  );
}
