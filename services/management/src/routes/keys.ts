// POST /api/v1/account/keys and DELETE /api/v1/account/keys/:id: create and revoke API keys
// (docs/api.md, "API keys"). The use cases live in create-api-key.ts and revoke-api-key.ts.
import { ROUTES } from "@kurz/contracts";
import { clientHashOf, type MountedRoute, route, v1Success } from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { createApiKey } from "../keys/create-api-key.ts";
import { revokeApiKey } from "../keys/revoke-api-key.ts";

export function keysRoutes(
  deps: Pick<AuthDeps, "prisma" | "redis" | "keyLimits" | "signinLimits">,
): MountedRoute[] {
  return [
    route(ROUTES.createApiKey, async ({ identity, body, res }) =>
      v1Success(await createApiKey(deps, identity, body, clientHashOf(res))),
    ),
    route(ROUTES.revokeApiKey, async ({ identity, params: { id } }) =>
      v1Success(await revokeApiKey(deps, identity, id)),
    ),
  ];
}
