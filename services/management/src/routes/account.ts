// GET /api/v1/account and /api/v1/account/usage (SPEC 2.3, 2.4).
import { type Account, ROUTES, type Usage } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, unauthorized, v1Success } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { activeKeyWhere, toApiKeyItem } from "../api-keys.ts";
import { recentKeyUse } from "../key-usage-flusher.ts";

export function accountRoutes(deps: { prisma: PrismaClient; redis: Redis }): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.getAccount, async ({ identity: { accountId } }) => {
      // total_links is the stored count, exact because every create and delete keeps it (decision 0012).
      const account = await prisma.account.findUnique({ where: { id: accountId } });
      if (!account) throw unauthorized("This API key's account no longer exists");
      const data: Account = {
        id: account.id,
        email: account.email,
        link_limit: account.linkLimit,
        default_expiry_hours: account.defaultExpiryHours,
        total_links: account.linkCount,
        total_clicks: Number(account.totalClicks),
        created_at: account.createdAt.toISOString(),
      };
      return v1Success(data);
    }),

    route(ROUTES.getUsage, async ({ identity: { accountId, keyId } }) => {
      const now = new Date();
      // Revoked keys are gone for good and are not listed; expired ones are, so their owner sees why
      // a client stopped working.
      const [keys, activeKeys] = await Promise.all([
        prisma.apiKey.findMany({ where: { accountId, revokedAt: null }, orderBy: { createdAt: "asc" } }),
        prisma.apiKey.count({ where: activeKeyWhere(accountId, now) }),
      ]);
      const current = keys.find((k) => k.id === keyId);
      if (!current) throw unauthorized("This API key is no longer valid");
      const recent = await recentKeyUse(
        deps.redis,
        keys.map((k) => k.id),
      ).catch(() => new Map<string, number>());
      // This request is a use of the current key too. The gateway records it, but batches its writes
      // (about a second), so without this the answer could show the key as never used.
      recent.set(current.id, Math.max(recent.get(current.id) ?? 0, now.getTime()));
      const data: Usage = {
        current_key: {
          id: current.id,
          name: current.name,
          rate_limit_per_minute: current.rateLimitPerMinute,
          rate_limit_per_hour: current.rateLimitPerHour,
        },
        active_keys: activeKeys,
        keys: keys.map((k) => toApiKeyItem(k, recent.get(k.id))),
      };
      return v1Success(data);
    }),
  ];
}
