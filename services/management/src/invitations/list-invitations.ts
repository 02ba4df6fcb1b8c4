// GET /api/v1/workspaces/:id/invitations (workspace:admin): pending ones, newest first; expired ones
// are deleted on the way.
import type { Invitation } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";
import { toInvitation } from "./invitations.ts";

export async function listInvitations(
  prisma: PrismaClient,
  caller: Caller,
  id: string,
  now = new Date(),
): Promise<Invitation[]> {
  requireOwnWorkspace(caller, id);
  const accountId = caller.accountId;
  await prisma.invitation.deleteMany({ where: { accountId, expiresAt: { lte: now } } });
  const rows = await prisma.invitation.findMany({
    where: { accountId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  return rows.map(toInvitation);
}
