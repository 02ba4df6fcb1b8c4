// Revoking an API key: idempotent, and the gateway's cached copy of the key is replaced at once.
import { apiKeyCacheKey, type RevokedApiKey, type Scope } from "@kurz/contracts";
import type { ApiKey, PrismaClient } from "@kurz/db";
import { notFound, serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { recordAudit } from "../audit/record-audit.ts";
import { toKeyRecord } from "./api-keys.ts";

// Long enough to outlive any gateway cache entry; after it the gateway asks management, which says revoked.
const REVOKED_CACHE_SECONDS = 3600;

/**
 * Revokes a key of the workspace: one the caller made, or any with workspace:admin. Another member's
 * key answers 404 to a caller who may not revoke it, as a key of another workspace does.
 */
export async function revokeApiKey(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: { accountId: string; userId: string | null; scopes: readonly Scope[] },
  id: string,
): Promise<RevokedApiKey> {
  const { prisma } = deps;
  const anyKey = caller.scopes.includes("workspace:admin");
  const existing = await prisma.apiKey.findFirst({
    where: { id, accountId: caller.accountId, ...(anyKey ? {} : { createdByUserId: caller.userId ?? "" }) },
  });
  if (!existing) throw notFound("API key not found");
  // Revoking twice answers like the first time (DELETE is idempotent) and re-invalidates the cache.
  const revoked: ApiKey =
    existing.revokedAt !== null
      ? existing
      : await prisma.$transaction(async (tx) => {
          const key = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
          await recordAudit(tx, {
            accountId: caller.accountId,
            action: "api_key.revoked",
            resourceType: "api_key",
            resourceId: id,
            details: { name: key.name },
          });
          return key;
        });
  await invalidateGatewayCache(deps.redis, revoked);
  return { id: revoked.id, revoked: true, revoked_at: revoked.revokedAt!.toISOString() };
}

/**
 * Revokes every live key that matches (a user's keys on a password change's `revoke_keys`, a removed
 * member's in the workspace) and replaces each one's
 * cached record; returns how many were revoked. The rows go first, so a gateway miss afterwards finds
 * them revoked; when the cache cannot be written the request fails with 503 (the keys stay revoked,
 * and a gateway's older copy lasts at most its KEY_CACHE_TTL_SECONDS).
 */
export async function revokeAllApiKeys(
  deps: { prisma: PrismaClient; redis: Redis },
  where: { createdByUserId: string; accountId?: string } | { accountId: string },
): Promise<number> {
  const revoked = await deps.prisma.$transaction(async (tx) => {
    const keys = await tx.apiKey.updateManyAndReturn({
      where: { ...where, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    await recordAudit(
      tx,
      keys.map((key) => ({
        accountId: key.accountId,
        action: "api_key.revoked",
        resourceType: "api_key",
        resourceId: key.id,
        details: { name: key.name, with: "all" },
      })),
    );
    return keys;
  });
  await Promise.all(revoked.map((key) => invalidateGatewayCache(deps.redis, key)));
  return revoked.length;
}

/**
 * Replaces the gateway's cached record with the revoked one rather than deleting it: a gateway that
 * read the key just before the revocation writes its stale copy with SET NX, which then loses.
 * On failure the request fails, and repeating it (idempotent) retries the invalidation.
 */
export async function invalidateGatewayCache(redis: Redis, key: ApiKey): Promise<void> {
  try {
    await redis.set(
      apiKeyCacheKey(key.keyHash),
      JSON.stringify(toKeyRecord(key)),
      "EX",
      REVOKED_CACHE_SECONDS,
    );
  } catch {
    throw serviceUnavailable("The key is revoked but caches could not be updated; repeat the request");
  }
}
