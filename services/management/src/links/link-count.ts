// The account's stored link count (decision 0037), kept in shards with leased quotas (table link_quota,
// decision 0037) by every link create and delete in the same transaction, so the link-limit check and
// the totals cost one indexed read of 16 rows instead of a count over the account's links. A create
// counts itself inside the database function that inserts it (kurz_create_links →
// kurz_count_links_upto, decision 0044): one shard row, within the lease that shard holds, so one
// account's creates do not queue on one row until each commit is flushed. When a shard's lease is
// spent, a rebalance under the account's row lock re-reads the exact sum and refuses at the limit. The
// count is the last statement of a create and of a delete, so a shard is locked only from it to commit.
import type { Prisma, PrismaClient } from "@kurz/db";
import { ApiError, apiError } from "@kurz/service-kit";

type Tx = Prisma.TransactionClient;

/** SnipURL's documented wording (its clients show `error.message`); the figure is in `details` too. */
export function linkLimitError(limit: number): ApiError {
  return apiError("FORBIDDEN", `Link limit reached (${limit}). Delete existing links or upgrade your plan.`, {
    link_limit: limit,
  });
}

/**
 * Uncounts deleted links (only those the delete statement itself removed) and their clicks: click data
 * goes with its link, so `total_clicks` drops in the same transaction and agrees with the
 * analytics summary at once instead of waiting for click totals that a deleted link never sends again.
 */
export async function countLinksRemoved(
  tx: Tx,
  accountId: string,
  removed: readonly { clicksCount: bigint | number }[],
): Promise<void> {
  if (removed.length === 0) return;
  const clicks = removed.reduce((sum, link) => sum + BigInt(link.clicksCount), 0n);
  await tx.$executeRaw`SELECT kurz_uncount_links(${accountId}::uuid, ${removed.length}::int, ${clicks}::bigint)`;
}

/** The account's link count as stored (the unfiltered list total and `total_links`): its shards' sum. */
export async function storedLinkCount(prisma: PrismaClient | Tx, accountId: string): Promise<number> {
  const [row] = await prisma.$queryRaw<{ n: number }[]>`
    SELECT COALESCE(sum(used), 0)::int AS n FROM link_quota WHERE account_id = ${accountId}::uuid`;
  return row?.n ?? 0;
}

/**
 * The account's stored link count, and of those the links that answer at `now`: all but those switched
 * off and those whose expiry has passed (the redirect's rule). One statement, so both are of one
 * snapshot; what it reads grows with the links that do not answer, not with the account (the partial
 * index links_account_id_expires_at_active_idx, which the baseline migration says more of).
 */
export async function linkCounts(
  prisma: PrismaClient | Tx,
  accountId: string,
  now: Date,
): Promise<{ total: number; active: number }> {
  const [row] = await prisma.$queryRawUnsafe<{ total: number; active: number }[]>(
    LINK_COUNTS_SQL,
    accountId,
    now,
  );
  return { total: row?.total ?? 0, active: row?.active ?? 0 };
}

/** linkCounts' statement ($1 the account, $2 the moment), as `./kurz bench api` EXPLAINs it. */
export const LINK_COUNTS_SQL = `SELECT q.total, GREATEST(0, q.total - q.inactive - q.expired)::int AS active
  FROM (SELECT
    (SELECT COALESCE(sum(used), 0)::int FROM link_quota WHERE account_id = $1::uuid) AS total,
    (SELECT count(*)::int FROM links WHERE account_id = $1::uuid AND NOT is_active) AS inactive,
    (SELECT count(*)::int FROM links WHERE account_id = $1::uuid
      AND is_active AND expires_at IS NOT NULL AND expires_at <= $2::timestamptz) AS expired
  ) AS q`;

/** The account's link limit and stored count, or null for an unknown account. */
export async function linkRoom(
  prisma: PrismaClient | Tx,
  accountId: string,
): Promise<{ linkLimit: number; linkCount: number } | null> {
  const [row] = await prisma.$queryRaw<{ link_limit: number; link_count: number }[]>`
    SELECT a.link_limit,
      (SELECT COALESCE(sum(used), 0)::int FROM link_quota WHERE account_id = a.id) AS link_count
    FROM accounts a WHERE a.id = ${accountId}::uuid`;
  return row ? { linkLimit: row.link_limit, linkCount: row.link_count } : null;
}

/**
 * Early 403 before anything slow (title fetches, password hashing) when `adding` more links cannot fit.
 * Not a guarantee under concurrency: the insert's counter update is.
 */
export async function assertRoomFor(prisma: PrismaClient, accountId: string, adding: number): Promise<void> {
  const account = await linkRoom(prisma, accountId);
  if (!account) throw new ApiError(401, "UNAUTHORIZED", "Unknown account");
  if (account.linkCount + adding > account.linkLimit) throw linkLimitError(account.linkLimit);
}
