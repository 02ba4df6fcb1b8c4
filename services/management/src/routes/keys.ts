// POST /api/v1/account/keys and DELETE /api/v1/account/keys/:id: create and revoke API keys (beyond the
// SPEC, ARCHITECTURE "API keys"). The use cases live in create-api-key.ts and revoke-api-key.ts.
import { ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import type { KeyLimits } from "../api-keys.ts";
import { createApiKey } from "../create-api-key.ts";
import { revokeApiKey } from "../revoke-api-key.ts";

export interface KeysDeps {
  prisma: PrismaClient;
  redis: Redis;
  keyLimits: KeyLimits;
}

export function keysRoutes(deps: KeysDeps): MountedRoute[] {
  return [
    route(ROUTES.createApiKey, async ({ identity: { accountId }, body }) =>
      v1Success(await createApiKey(deps, accountId, body)),
    ),
    route(ROUTES.revokeApiKey, async ({ identity: { accountId }, params: { id } }) =>
      v1Success(await revokeApiKey(deps, accountId, id)),
    ),
  ];
}
