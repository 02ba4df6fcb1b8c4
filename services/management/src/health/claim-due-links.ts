// Claims due links for the health scheduler (docs/health.md, "Scheduled checks"). A claim moves the
// link's next_check_at past a lease in the statement that selects it (FOR UPDATE SKIP LOCKED), so two
// schedulers, in one process or several, never hold one link; a scheduler that dies leaves leases that
// end, and the link is due again. Due links that are not to be checked (disabled, expired, at their click
// limit, or their workspace's checks off) are re-timed in the same statement instead.
import { type PrismaClient, poolOf } from "@kurz/db";
import type { LinkToCheck } from "./check-link.ts";
import { INTERVAL_OF_ACCOUNT } from "./schedule-interval.ts";

const CLAIM = `
  WITH due AS (
    SELECT link_id FROM link_health_schedule
    WHERE next_check_at <= $1::timestamptz
    ORDER BY next_check_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  ), found AS (
    SELECT d.link_id, l.account_id, l.original_url, ${INTERVAL_OF_ACCOUNT} AS every,
           l.is_active AND (l.expires_at IS NULL OR l.expires_at > $1::timestamptz)
             AND (l.max_clicks IS NULL OR l.clicks_count < l.max_clicks) AS live
    FROM due d JOIN links l ON l.id = d.link_id JOIN accounts a ON a.id = l.account_id
  )
  UPDATE link_health_schedule s
  SET next_check_at = CASE
    WHEN f.every IS NULL THEN NULL
    WHEN f.live THEN $1::timestamptz + $3 * interval '1 millisecond'
    ELSE $1::timestamptz + f.every END
  FROM found f
  WHERE s.link_id = f.link_id
  RETURNING f.link_id, f.account_id, f.original_url, f.live AND f.every IS NOT NULL AS claimed`;

export interface Claimed {
  /** The links to check now, each held until now + leaseMs. */
  links: LinkToCheck[];
  /** Due links put off without a check (inactive, expired, or their workspace's checks off). */
  passed: number;
}

/** Takes up to `limit` links due at `now` (ms), the longest due first. */
export async function claimDueLinks(
  prisma: PrismaClient,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<Claimed> {
  // On the plain pool: every scheduler runs it every few seconds (as the import worker's claim).
  const { rows } = await poolOf(prisma).query<{
    link_id: string;
    account_id: string;
    original_url: string;
    claimed: boolean;
  }>(CLAIM, [new Date(now), limit, leaseMs]);
  const links = rows
    .filter((r) => r.claimed)
    .map((r) => ({ accountId: r.account_id, linkId: r.link_id, url: r.original_url }));
  return { links, passed: rows.length - links.length };
}

/** Puts a claimed link back, due at `at` (ms): its site was busy, or the check could not run. */
export async function putBack(prisma: PrismaClient, linkId: string, at: number): Promise<void> {
  await poolOf(prisma).query(
    "UPDATE link_health_schedule SET next_check_at = $2::timestamptz WHERE link_id = $1::uuid",
    [linkId, new Date(at)],
  );
}
