// POST /api/v1/workspaces/:id/invitations (workspace:admin): invites an e-mail with a role. Only owners
// invite owners; a member cannot be invited again; inviting an e-mail again replaces its pending
// invitation (the old link stops working). The answer carries the link, once.
import { INVITATION_DAYS, type Role } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { conflict, forbidden } from "@kurz/service-kit";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";
import { acceptUrl, hashInvitationToken, newInvitationToken, toInvitation } from "./invitations.ts";

const DAY_MS = 86_400_000;

export async function createInvitation(
  deps: { prisma: PrismaClient; baseUrl: string },
  caller: Caller,
  id: string,
  body: { email: string; role: Role },
  now = new Date(),
) {
  requireOwnWorkspace(caller, id);
  if (body.role === "owner" && !caller.scopes.includes("workspace:owner")) {
    throw forbidden("Only an owner can invite an owner");
  }
  const accountId = caller.accountId;
  const member = await deps.prisma.membership.findFirst({
    where: { accountId, user: { email: body.email } },
  });
  if (member) throw conflict(`${body.email} is already a member of this workspace`);
  const token = newInvitationToken();
  const fields = {
    role: body.role,
    tokenHash: hashInvitationToken(token),
    invitedByUserId: caller.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_DAYS * DAY_MS),
  };
  const row = await deps.prisma.invitation.upsert({
    where: { accountId_email: { accountId, email: body.email } },
    create: { accountId, email: body.email, ...fields },
    update: fields,
  });
  return { ...toInvitation(row), accept_url: acceptUrl(deps.baseUrl, token) };
}
