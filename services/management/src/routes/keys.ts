// POST /api/v1/account/keys and DELETE /api/v1/account/keys/:id: create and revoke API keys (beyond the
// SPEC, ARCHITECTURE "API keys"). The full key is returned once and never stored.
import {
  ApiKeyIdParams,
  apiKeyCacheKey,
  CreateApiKeyBody,
  type CreatedApiKey,
  MAX_ACTIVE_KEYS,
  type RevokedApiKey,
} from "@kurz/contracts";
import type { ApiKey, PrismaClient } from "@kurz/db";
import {
  forbidden,
  methodNotAllowed,
  notFound,
  requireIdentity,
  serviceUnavailable,
  unauthorized,
  validation,
} from "@kurz/service-kit";
import { Router } from "express";
import type { Redis } from "ioredis";
import { activeKeyWhere, generateApiKey, type KeyLimits, toApiKeyItem, toKeyRecord } from "../api-keys.ts";

// Long enough to outlive any gateway cache entry; after it the gateway asks management, which says revoked.
const REVOKED_CACHE_SECONDS = 3600;

export interface KeysDeps {
  prisma: PrismaClient;
  redis: Redis;
  keyLimits: KeyLimits;
}

export function keysRouter(deps: KeysDeps): Router {
  const router = Router();
  const { prisma } = deps;

  router
    .route("/")
    .post(async (req, res) => {
      const { accountId } = requireIdentity(res);
      const body = CreateApiKeyBody.parse(req.body);
      const expiresAt = body.expires_at !== undefined ? new Date(body.expires_at) : null;
      if (expiresAt && expiresAt.getTime() <= Date.now()) {
        throw validation("expires_at must be in the future", {
          errors: [],
          properties: { expires_at: { errors: ["must be in the future"] } },
        });
      }
      const { key, hash, prefix } = generateApiKey();
      const created = await prisma.$transaction(async (tx) => {
        // Serialises key creation per account so concurrent requests cannot pass the limit.
        const locked = await tx.$queryRaw<{ id: string }[]>`
          SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
        if (locked.length === 0) throw unauthorized("This API key's account no longer exists");
        const active = await tx.apiKey.count({ where: activeKeyWhere(accountId) });
        if (active >= MAX_ACTIVE_KEYS) {
          throw forbidden(
            `Key limit reached: an account can have at most ${MAX_ACTIVE_KEYS} active API keys. Revoke a key you no longer use first.`,
          );
        }
        return tx.apiKey.create({
          data: {
            accountId,
            name: body.name,
            keyHash: hash,
            keyPrefix: prefix,
            rateLimitPerMinute: deps.keyLimits.perMinute,
            rateLimitPerHour: deps.keyLimits.perHour,
            expiresAt,
          },
        });
      });
      const data: CreatedApiKey = { ...toApiKeyItem(created), key };
      res.status(201).json({ success: true, data });
    })
    .all(methodNotAllowed(["POST"]));

  router
    .route("/:id")
    .delete(async (req, res) => {
      const { accountId } = requireIdentity(res);
      const { id } = ApiKeyIdParams.parse(req.params);
      const existing = await prisma.apiKey.findFirst({ where: { id, accountId } });
      if (!existing) throw notFound("API key not found");
      // Revoking twice answers like the first time (DELETE is idempotent) and re-invalidates the cache.
      const revoked: ApiKey =
        existing.revokedAt !== null
          ? existing
          : await prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
      await invalidateGatewayCache(deps.redis, revoked);
      const data: RevokedApiKey = {
        id: revoked.id,
        revoked: true,
        revoked_at: revoked.revokedAt!.toISOString(),
      };
      res.json({ success: true, data });
    })
    .all(methodNotAllowed(["DELETE"]));

  return router;
}

/**
 * Replaces the gateway's cached record with the revoked one rather than deleting it: a gateway that
 * read the key just before the revocation writes its stale copy with SET NX, which then loses.
 * On failure the request fails, and repeating it (idempotent) retries the invalidation.
 */
async function invalidateGatewayCache(redis: Redis, key: ApiKey): Promise<void> {
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
