// DELETE /api/v1/workspaces/:id/invitations/:invitation_id (workspace:admin): its link stops working.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";

export async function deleteInvitation(
  prisma: PrismaClient,
  caller: Caller,
  params: { id: string; invitation_id: string },
): Promise<{ id: string; deleted: true }> {
  requireOwnWorkspace(caller, params.id);
  const { count } = await prisma.invitation.deleteMany({
    where: { id: params.invitation_id, accountId: caller.accountId },
  });
  if (count === 0) throw notFound("No such invitation");
  return { id: params.invitation_id, deleted: true };
}
