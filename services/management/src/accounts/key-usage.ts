// GET /api/v1/account/usage: the account's keys, their limits and their last use.
import type { Usage } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { unauthorized } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { activeKeyWhere, toApiKeyItem } from "../keys/api-keys.ts";
import { recentKeyUse } from "../keys/key-usage-flusher.ts";

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
