// GET /api/v1/account: the account with its stored totals.
import type { Account, HealthCheckInterval } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import type { KeyLimits } from "../keys/api-keys.ts";
import { storedLinkCount } from "../links/link-count.ts";
import { accountKeyLimits } from "./update-account-limits.ts";

export async function accountOverview(
  prisma: PrismaClient,
  accountId: string,
  keyLimits: KeyLimits,
): Promise<Account> {
  // total_links is the stored count, exact because every create and delete keeps it (decision 0037).
  const [account, totalLinks] = await Promise.all([
    prisma.account.findUnique({ where: { id: accountId } }),
    storedLinkCount(prisma, accountId),
  ]);
  if (!account) throw unauthorized("This API key's account no longer exists");
  const limits = accountKeyLimits(account, keyLimits);
  return {
    id: account.id,
    email: account.email,
    link_limit: account.linkLimit,
    default_expiry_hours: account.defaultExpiryHours,
    total_links: totalLinks,
    total_clicks: Number(account.totalClicks),
    created_at: account.createdAt.toISOString(),
    status: account.plan,
    rate_limit_per_minute: limits.perMinute,
    rate_limit_per_hour: limits.perHour,
    forward_query: account.forwardQuery,
    // Only the API writes it, from HealthCheckInterval.
    health_check_interval: account.healthCheckInterval as HealthCheckInterval,
  };
}
