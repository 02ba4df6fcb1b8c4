// PATCH /api/v1/workspaces/:id/members/:user_id (workspace:admin): a member's new role.
import type { Member, Role } from "@kurz/contracts";
import { changeMembership, type MembershipDeps } from "./change-membership.ts";
import { type Caller, requireOwnWorkspace, toMember } from "./workspaces.ts";

export async function updateMember(
  deps: MembershipDeps,
  caller: Caller,
  params: { id: string; user_id: string },
  role: Role,
): Promise<Member> {
  requireOwnWorkspace(caller, params.id);
  const before = await changeMembership(deps, caller, params.user_id, role);
  return toMember({ ...before, role });
}
