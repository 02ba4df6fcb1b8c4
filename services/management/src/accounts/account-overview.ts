// The v1 account reads (SPEC 2.3, 2.4): the account with its stored totals, and the key usage overview.
// Route files only map requests to these (issue 15: no Prisma reads in route files).
import type { Account, Usage } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { activeKeyWhere, type KeyLimits, toApiKeyItem } from "../keys/api-keys.ts";
import { recentKeyUse } from "../keys/key-usage-flusher.ts";
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
  };
}

export async function keyUsage(
  deps: { prisma: PrismaClient; redis: Redis },
  accountId: string,
  keyId: string | null,
): Promise<Usage> {
  const now = new Date();
  // Revoked keys are gone for good and are not listed; expired ones are, so their owner sees why
  // a client stopped working.
  const [keys, activeKeys] = await Promise.all([
    deps.prisma.apiKey.findMany({ where: { accountId, revokedAt: null }, orderBy: { createdAt: "asc" } }),
    deps.prisma.apiKey.count({ where: activeKeyWhere(accountId, now) }),
  ]);
  // A session (the dashboard) has no current key; a key that made the request must still be live.
  const current = keyId === null ? null : keys.find((k) => k.id === keyId);
  if (current === undefined) throw unauthorized("This API key is no longer valid");
  const recent = await recentKeyUse(
    deps.redis,
    keys.map((k) => k.id),
  ).catch(() => new Map<string, number>());
  // This request is a use of the current key too. The gateway records it, but batches its writes
  // (about a second), so without this the answer could show the key as never used.
  if (current) recent.set(current.id, Math.max(recent.get(current.id) ?? 0, now.getTime()));
  return {
    current_key: current && {
      id: current.id,
      name: current.name,
      rate_limit_per_minute: current.rateLimitPerMinute,
      rate_limit_per_hour: current.rateLimitPerHour,
    },
    active_keys: activeKeys,
    keys: keys.map((k) => toApiKeyItem(k, recent.get(k.id))),
  };
}
