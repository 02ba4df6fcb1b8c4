// DELETE /api/v1/workspaces/:id/members/:user_id (workspace:admin) and POST …/leave (oneself): the
// membership ends, the person's keys in the workspace are revoked and their sessions leave it.
import { forbidden } from "@kurz/service-kit";
import { changeMembership, type MembershipDeps } from "./change-membership.ts";
import { type Caller, requireOwnWorkspace } from "./workspaces.ts";

export async function removeMember(
  deps: MembershipDeps,
  caller: Caller,
  params: { id: string; user_id: string },
): Promise<{ user_id: string; removed: true }> {
  requireOwnWorkspace(caller, params.id);
  await changeMembership(deps, caller, params.user_id, null);
  return { user_id: params.user_id, removed: true };
}

export async function leaveWorkspace(
  deps: MembershipDeps,
  caller: Caller,
  id: string,
): Promise<{ user_id: string; removed: true }> {
  requireOwnWorkspace(caller, id);
  if (caller.sessionId === null || caller.userId === null) {
    throw forbidden("Leave a workspace from a signed-in session");
  }
  await changeMembership(deps, caller, caller.userId, null);
  return { user_id: caller.userId, removed: true };
}
