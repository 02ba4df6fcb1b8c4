// The account's stored link count (accounts.link_count, decision 0012): kept by every link create and
// delete in the same transaction, so the link-limit check and the totals cost one row read instead of
// a count over the account's links. A create counts itself inside the database function that inserts
// it (kurz_create_link, decision 0019), exact under concurrency: a second writer waits on the row lock
// and, in READ COMMITTED, re-checks `link_count + 1 <= link_limit` against the committed count. The
// update is the last statement of both, so the account row is locked only from it to commit.
import type { Prisma, PrismaClient } from "@kurz/db";
import { type ApiError, apiError } from "@kurz/service-kit";

type Tx = Prisma.TransactionClient;

/** SnipURL's documented wording (its clients show `error.message`); the figure is in `details` too. */
export function linkLimitError(limit: number): ApiError {
  return apiError("FORBIDDEN", `Link limit reached (${limit}). Delete existing links or upgrade your plan.`, {
    link_limit: limit,
  });
}

/**
 * Uncounts deleted links (only those the delete statement itself removed) and their clicks: click data
 * goes with its link (SPEC 3), so `total_clicks` drops in the same transaction and agrees with the
 * analytics summary at once instead of waiting for click totals that a deleted link never sends again.
 */
export async function countLinksRemoved(
  tx: Tx,
  accountId: string,
  removed: readonly { clicksCount: bigint | number }[],
): Promise<void> {
  if (removed.length === 0) return;
  const clicks = removed.reduce((sum, link) => sum + BigInt(link.clicksCount), 0n);
  await tx.$executeRaw`
    UPDATE accounts SET link_count = link_count - ${removed.length}::int,
      total_clicks = GREATEST(total_clicks - ${clicks}::bigint, 0)
    WHERE id = ${accountId}::uuid`;
}

/** The account's link count as stored (the unfiltered list total and `total_links`). */
export async function storedLinkCount(prisma: PrismaClient | Tx, accountId: string): Promise<number> {
  const account = await prisma.account.findUnique({ where: { id: accountId }, select: { linkCount: true } });
  return account?.linkCount ?? 0;
}
