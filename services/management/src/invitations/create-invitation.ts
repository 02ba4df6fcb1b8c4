// POST /api/v1/workspaces/:id/invitations (workspace:admin): invites an e-mail with a role. Only owners
// invite owners; a member cannot be invited again; inviting an e-mail again replaces its pending
// invitation (the old link stops working). With mail configured the link goes to the invited address
// only (an invitation that cannot be mailed is withdrawn: 503); without, the answer carries it, once,
// for the inviter to send.
import { INVITATION_DAYS, type Role } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { conflict, forbidden, serviceUnavailable } from "@kurz/service-kit";
import { recordAudit, recordCreated } from "../audit/record-audit.ts";
import { invitationMail } from "../mail/invitation-mail.ts";
import type { Mailer } from "../mail/mailer.ts";
import { hashToken, newToken } from "../security/tokens.ts";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";
import { acceptUrl, toInvitation } from "./invitations.ts";

const DAY_MS = 86_400_000;

export async function createInvitation(
  deps: { prisma: PrismaClient; baseUrl: string; mailer: Mailer | null },
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
  const token = newToken();
  const fields = {
    role: body.role,
    tokenHash: hashToken(token),
    invitedByUserId: caller.userId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + INVITATION_DAYS * DAY_MS),
  };
  const row = await deps.prisma.$transaction(async (tx) => {
    const invitation = await tx.invitation.upsert({
      where: { accountId_email: { accountId, email: body.email } },
      create: { accountId, email: body.email, ...fields },
      update: fields,
      include: { account: { select: { name: true } }, invitedBy: { select: { email: true } } },
    });
    await recordCreated(tx, accountId, "invitation", invitation.id, { email: body.email, role: body.role });
    return invitation;
  });
  const url = acceptUrl(deps.baseUrl, token);
  if (deps.mailer === null) return { ...toInvitation(row), emailed: false, accept_url: url };
  try {
    await deps.mailer.send(
      invitationMail({
        to: row.email,
        workspace: row.account.name,
        inviter: row.invitedBy?.email ?? null,
        role: body.role,
        acceptUrl: url,
        expiresAt: row.expiresAt,
      }),
    );
  } catch {
    // Only this invitation: a newer one for the address (another token) stays.
    await deps.prisma.$transaction(async (tx) => {
      const { count } = await tx.invitation.deleteMany({
        where: { id: row.id, tokenHash: fields.tokenHash },
      });
      if (count === 0) return;
      await recordAudit(tx, {
        accountId,
        action: "invitation.deleted",
        resourceType: "invitation",
        resourceId: row.id,
        details: { email: body.email, reason: "not_emailed" },
      });
    });
    throw serviceUnavailable("The invitation could not be e-mailed; retry shortly");
  }
  return { ...toInvitation(row), emailed: true };
}
