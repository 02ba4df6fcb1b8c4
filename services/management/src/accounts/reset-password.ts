// POST /api/v1/auth/password-reset/:token: a new password for the user the link was sent to. The
// link works once (every pending link of the user goes with it); every session of the user ends,
// and the answer signs in afresh, in the user's first workspace. Unknown, used and expired links
// answer alike (404). A user with a second factor gets its challenge instead of a session: the link
// proves the mailbox, not the second factor.
import type { SignedIn, TwoFactorChallenge } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { asUser, recordUserAudit } from "../audit/record-audit.ts";
import { hashPassword } from "../security/passwords.ts";
import { hashToken } from "../security/tokens.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import { recogniseDevice } from "../sessions/known-devices.ts";
import { issueSession, toSession } from "../sessions/sessions.ts";
import { auditSignedIn } from "../sessions/sign-in-audit.ts";
import { clearAccountFailures } from "../sessions/signin-limits.ts";
import type { TwoFactorDeps } from "../two-factor/factors.ts";
import { factorsOf, hasSecondFactor } from "../two-factor/factors.ts";
import { startSecondFactor } from "../two-factor/start-second-factor.ts";
import { accountOverview } from "./account-overview.ts";
import { requireStrongPassword } from "./account-password.ts";
import type { AuthDeps } from "./auth-deps.ts";

const gone = () => notFound("This reset link does not exist, was used or has expired");

export async function resetPassword(
  deps: AuthDeps & Pick<TwoFactorDeps, "relyingParty">,
  token: string,
  password: string,
  device: string | null,
  now = new Date(),
): Promise<(SignedIn & { token: string; device: string }) | TwoFactorChallenge> {
  const { prisma } = deps;
  const tokenHash = hashToken(token);
  const reset = await prisma.passwordReset.findUnique({
    where: { tokenHash },
    include: { user: { select: { email: true } } },
  });
  if (!reset || reset.expiresAt <= now) throw gone();
  const { userId } = reset;
  await requireStrongPassword(password, { field: "password", email: reset.user.email });
  const passwordHash = await hashPassword(password);
  const twoFactor = hasSecondFactor(await factorsOf(prisma, userId));
  const updated = await prisma.$transaction(async (tx) => {
    // Of two uses of the link at once, one finds nothing to delete.
    const { count } = await tx.passwordReset.deleteMany({ where: { tokenHash, expiresAt: { gt: now } } });
    if (count === 0) throw gone();
    await tx.passwordReset.deleteMany({ where: { userId } });
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
    await recordUserAudit(tx, userId, {
      action: "user.password_reset",
      resourceType: "user",
      resourceId: userId,
      actor: asUser(userId),
    });
    if (twoFactor) return null;
    const session = await issueSession(tx, userId, deps.sessionTtlMs, now);
    await auditSignedIn(tx, userId, session.row.id, "password_reset");
    return session;
  });
  await endSessions(deps, updated ? { userId, keep: updated.row.id } : { userId });
  if (!updated) {
    const challenge = await startSecondFactor(deps, userId, now);
    if (challenge) return challenge;
  }
  const issued = updated ?? (await issueSession(prisma, userId, deps.sessionTtlMs, now));
  await clearAccountFailures(deps.redis, deps.signinLimits, reset.user.email);
  const session = toSession(issued.row);
  const known = await recogniseDevice(prisma, userId, device, now);
  return {
    account: await accountOverview(prisma, session.account_id, deps.keyLimits),
    session,
    token: issued.token,
    device: known.token,
  };
}
