// DELETE /api/v1/workspaces/:id/invitations/:invitation_id (workspace:admin): its link stops working.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";

export async function deleteInvitation(
  prisma: PrismaClient,
  caller: Caller,
  params: { id: string; invitation_id: string },
): Promise<{ id: string; deleted: true }> {
  requireOwnWorkspace(caller, params.id);
  await prisma.$transaction(async (tx) => {
    const where = { id: params.invitation_id, accountId: caller.accountId };
    const invitation = await tx.invitation.findFirst({ where, select: { email: true } });
    const { count } = await tx.invitation.deleteMany({ where });
    if (invitation === null || count === 0) throw notFound("No such invitation");
    await recordAudit(tx, {
      accountId: caller.accountId,
      action: "invitation.deleted",
      resourceType: "invitation",
      resourceId: params.invitation_id,
      details: { email: invitation.email },
    });
  });
  return { id: params.invitation_id, deleted: true };
}
