// /api/v1/workspaces and /api/v1/invitations: workspaces, their members and invitations
// (docs/workspaces.md); the use cases are in workspaces/ and invitations/.
import { ROUTES } from "@kurz/contracts";
import {
  clientHashOf,
  deviceCookie,
  deviceOf,
  type MountedRoute,
  route,
  sessionCookie,
  v1Success,
} from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { acceptInvitation } from "../invitations/accept-invitation.ts";
import { createInvitation } from "../invitations/create-invitation.ts";
import { deleteInvitation } from "../invitations/delete-invitation.ts";
import { listInvitations } from "../invitations/list-invitations.ts";
import type { Mailer } from "../mail/mailer.ts";
import type { TwoFactorDeps } from "../two-factor/factors.ts";
import { createWorkspace } from "../workspaces/create-workspace.ts";
import { deleteWorkspace } from "../workspaces/delete-workspace.ts";
import { getWorkspace } from "../workspaces/get-workspace.ts";
import { listMembers } from "../workspaces/list-members.ts";
import { listWorkspaces } from "../workspaces/list-workspaces.ts";
import { leaveWorkspace, removeMember } from "../workspaces/remove-member.ts";
import { updateMember } from "../workspaces/update-member.ts";
import { updateWorkspace } from "../workspaces/update-workspace.ts";

export function workspacesRoutes(
  deps: AuthDeps & Pick<TwoFactorDeps, "relyingParty"> & { mailer: Mailer | null },
): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.listWorkspaces, async ({ identity }) => v1Success(await listWorkspaces(prisma, identity))),
    route(ROUTES.createWorkspace, async ({ identity, body }) =>
      v1Success(await createWorkspace(deps, identity, body.name)),
    ),
    route(ROUTES.getWorkspace, async ({ identity, params }) =>
      v1Success(await getWorkspace(prisma, identity, params.id)),
    ),
    route(ROUTES.updateWorkspace, async ({ identity, params, body }) =>
      v1Success(await updateWorkspace(deps, identity, params.id, body)),
    ),
    route(ROUTES.deleteWorkspace, async ({ identity, params }) =>
      v1Success(await deleteWorkspace(deps, identity, params.id)),
    ),
    route(ROUTES.listMembers, async ({ identity, params }) =>
      v1Success(await listMembers(prisma, identity, params.id)),
    ),
    route(ROUTES.updateMember, async ({ identity, params, body }) =>
      v1Success(await updateMember(deps, identity, params, body.role)),
    ),
    route(ROUTES.removeMember, async ({ identity, params }) =>
      v1Success(await removeMember(deps, identity, params)),
    ),
    route(ROUTES.leaveWorkspace, async ({ identity, params }) =>
      v1Success(await leaveWorkspace(deps, identity, params.id)),
    ),
    route(ROUTES.createInvitation, async ({ identity, params, body }) =>
      v1Success(await createInvitation(deps, identity, params.id, body)),
    ),
    route(ROUTES.listInvitations, async ({ identity, params }) =>
      v1Success(await listInvitations(prisma, identity, params.id)),
    ),
    route(ROUTES.deleteInvitation, async ({ identity, params }) =>
      v1Success(await deleteInvitation(prisma, identity, params)),
    ),
    route(ROUTES.acceptInvitation, async ({ params, body, res }) => {
      const client = { clientHash: clientHashOf(res), device: deviceOf(res) };
      const outcome = await acceptInvitation(deps, params.token, body.password, client);
      res.setHeader("Cache-Control", "no-store");
      if ("two_factor_required" in outcome) return v1Success(outcome);
      const { token, device, ...signedIn } = outcome;
      const cookies = { publicBaseUrl: deps.baseUrl };
      res.setHeader("Set-Cookie", [
        sessionCookie(token, deps.sessionTtlMs / 1000, cookies),
        deviceCookie(device, cookies),
      ]);
      res.setHeader("Cache-Control", "no-store");
      return v1Success(signedIn);
    }),
  ];
}
