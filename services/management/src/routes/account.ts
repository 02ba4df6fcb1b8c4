// GET /api/v1/account and /api/v1/account/usage (SPEC 2.3, 2.4).
import type { Account, Usage } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { methodNotAllowed, requireIdentity, unauthorized } from "@kurz/service-kit";
import { Router } from "express";
import type { Redis } from "ioredis";
import { activeKeyWhere, toApiKeyItem } from "../api-keys.ts";
import { recentKeyUse } from "../key-usage-flusher.ts";

export function accountRouter(deps: { prisma: PrismaClient; redis: Redis }): Router {
  const router = Router();
  const { prisma } = deps;

  router
    .route("/")
    .get(async (_req, res) => {
      const { accountId } = requireIdentity(res);
      // Counted on every read: totals are live, not a snapshot that drifts.
      const [account, totalLinks] = await Promise.all([
        prisma.account.findUnique({ where: { id: accountId } }),
        prisma.link.count({ where: { accountId } }),
      ]);
      if (!account) throw unauthorized("This API key's account no longer exists");
      const data: Account = {
        id: account.id,
        email: account.email,
        link_limit: account.linkLimit,
        default_expiry_hours: account.defaultExpiryHours,
        total_links: totalLinks,
        total_clicks: Number(account.totalClicks),
        created_at: account.createdAt.toISOString(),
      };
      res.json({ success: true, data });
    })
    .all(methodNotAllowed(["GET"]));

  router
    .route("/usage")
    .get(async (_req, res) => {
      const { accountId, keyId } = requireIdentity(res);
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
      res.json({ success: true, data });
    })
    .all(methodNotAllowed(["GET"]));

  return router;
}
