// GET /api/v1/users/me/deletion-preview and DELETE /api/v1/users/me: leaving for good; the use case
// is accounts/delete-user.ts.
import { ROUTES } from "@kurz/contracts";
import { clearedSessionCookie, clientHashOf, type MountedRoute, route, v1Success } from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { deleteUser, deletionPreview } from "../accounts/delete-user.ts";
import { sessionCaller } from "../sessions/session-caller.ts";
import type { EraseDeps } from "../workspaces/erase-workspace.ts";

export function leaveRoutes(deps: AuthDeps & EraseDeps): MountedRoute[] {
  return [
    route(ROUTES.getDeletionPreview, async ({ identity, res }) => {
      res.setHeader("Cache-Control", "no-store");
      return v1Success(await deletionPreview(deps.prisma, sessionCaller(identity).userId));
    }),
    route(ROUTES.deleteUser, async ({ identity, body, res }) => {
      const deleted = await deleteUser(deps, sessionCaller(identity), body, clientHashOf(res));
      res.setHeader("Set-Cookie", clearedSessionCookie({ publicBaseUrl: deps.baseUrl }));
      return v1Success(deleted);
    }),
  ];
}
