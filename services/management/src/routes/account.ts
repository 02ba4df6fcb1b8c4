// GET /api/v1/account and /api/v1/account/usage, PATCH /api/v1/account and
// POST /api/v1/account/password; the use cases are in accounts/ (account-overview.ts, key-usage.ts,
// update-account.ts, change-password.ts).
import { ROUTES } from "@kurz/contracts";
import { clientHashOf, type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { accountOverview } from "../accounts/account-overview.ts";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { changePassword } from "../accounts/change-password.ts";
import { keyUsage } from "../accounts/key-usage.ts";
import { updateAccount } from "../accounts/update-account.ts";

export function accountRoutes(deps: AuthDeps): MountedRoute[] {
  return [
    route(ROUTES.updateAccount, async ({ identity: { accountId }, body }) =>
      v1Success(await updateAccount(deps.prisma, accountId, body, deps.keyLimits)),
    ),
    route(ROUTES.changePassword, async ({ identity, body, res }) =>
      v1Success(await changePassword(deps, identity, body, clientHashOf(res))),
    ),
    route(ROUTES.getAccount, async ({ identity: { accountId } }) =>
      v1Success(await accountOverview(deps.prisma, accountId, deps.keyLimits)),
    ),
    route(ROUTES.getUsage, async ({ identity: { accountId, keyId } }) =>
      v1Success(await keyUsage(deps, accountId, keyId)),
    ),
  ];
}
