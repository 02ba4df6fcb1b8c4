// POST /api/v1/invitations/:token/accept: the token proves the invitation reached its e-mail; the
// password proves who is accepting. An existing user gives their own (a wrong one spends their
// sign-in budget, as at sign-in); someone new chooses one, which creates their user. Either way they
// join with the invited role (a member already keeps theirs), the invitation is used up, and a session
// in that workspace is issued (for a user with a second factor, its challenge instead; they then land
// in their first workspace). Unknown, used and expired tokens answer alike (404).
import type { SignedIn, TwoFactorChallenge } from "@kurz/contracts";
import { isUniqueViolation } from "@kurz/db";
import { conflict, notFound } from "@kurz/service-kit";
import { accountOverview } from "../accounts/account-overview.ts";
import { requireStrongPassword } from "../accounts/account-password.ts";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { asUser, recordAudit } from "../audit/record-audit.ts";
import { hashPassword } from "../security/passwords.ts";
import { hashToken } from "../security/tokens.ts";
import { recogniseDevice } from "../sessions/known-devices.ts";
import { forgetCachedSessions, issueSession, toSession } from "../sessions/sessions.ts";
import { invalidCredentials, passwordMatches } from "../sessions/sign-in.ts";
import { auditSignedIn, auditSignInFailed } from "../sessions/sign-in-audit.ts";
import { checkSigninBudget, clearAccountFailures, recordSigninFailure } from "../sessions/signin-limits.ts";
import { factorsOf, hasSecondFactor, type TwoFactorDeps } from "../two-factor/factors.ts";
import { startSecondFactor } from "../two-factor/start-second-factor.ts";

const gone = () => notFound("This invitation does not exist, was used or has expired");

export async function acceptInvitation(
  deps: AuthDeps & Pick<TwoFactorDeps, "relyingParty">,
  token: string,
  password: string,
  client: { clientHash: string | null; device: string | null },
  now = new Date(),
): Promise<(SignedIn & { token: string; device: string }) | TwoFactorChallenge> {
  const { clientHash } = client;
  const { prisma } = deps;
  const tokenHash = hashToken(token);
  const invitation = await prisma.invitation.findUnique({ where: { tokenHash } });
  if (!invitation || invitation.expiresAt <= now) throw gone();
  const { email, accountId } = invitation;
  const existing = await prisma.user.findUnique({ where: { email } });
  let newPasswordHash: string | null = null;
  let twoFactor = false;
  if (existing) {
    await checkSigninBudget(deps.redis, deps.signinLimits, email, clientHash);
    if (!(await passwordMatches(existing.passwordHash, password))) {
      await auditSignInFailed(prisma, existing.id, "invitation");
      await recordSigninFailure(deps.redis, deps.signinLimits, email, clientHash);
      throw invalidCredentials();
    }
    twoFactor = hasSecondFactor(await factorsOf(prisma, existing.id));
    // Kept until the second factor, as at sign-in: the password must not reset what wrong codes spend.
    if (!twoFactor) await clearAccountFailures(deps.redis, deps.signinLimits, email);
  } else {
    await requireStrongPassword(password, { field: "password", email });
    newPasswordHash = await hashPassword(password);
  }
  let issued: Awaited<ReturnType<typeof issueSession>> | null;
  try {
    issued = await prisma.$transaction(async (tx) => {
      // Deleting by the token hash as well: of two acceptances at once, one finds nothing to delete.
      const { count } = await tx.invitation.deleteMany({ where: { id: invitation.id, tokenHash } });
      if (count === 0) throw gone();
      const userId =
        existing?.id ?? (await tx.user.create({ data: { email, passwordHash: newPasswordHash } })).id;
      await tx.membership.upsert({
        where: { accountId_userId: { accountId, userId } },
        create: { accountId, userId, role: invitation.role },
        update: {},
      });
      await recordAudit(tx, {
        accountId,
        action: "invitation.accepted",
        resourceType: "invitation",
        resourceId: invitation.id,
        details: { email, role: invitation.role },
        actor: asUser(userId),
      });
      if (twoFactor) return null;
      const session = await issueSession(tx, userId, deps.sessionTtlMs, now);
      await auditSignedIn(tx, userId, session.row.id, "invitation");
      return session;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This e-mail address signed up meanwhile: accept again");
    throw err;
  }
  if (issued === null) {
    // Only an existing user has a second factor.
    await forgetCachedSessions(prisma, deps.redis, existing!.id);
    const challenge = await startSecondFactor(deps, existing!.id, now);
    if (challenge) return challenge;
    issued = await issueSession(prisma, existing!.id, deps.sessionTtlMs, now);
  }
  await forgetCachedSessions(prisma, deps.redis, issued.row.userId);
  const known = await recogniseDevice(prisma, issued.row.userId, client.device, now);
  return {
    account: await accountOverview(prisma, accountId, deps.keyLimits),
    session: toSession(issued.row, accountId),
    token: issued.token,
    device: known.token,
  };
}
