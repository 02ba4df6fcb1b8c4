// Changing the password (POST /api/v1/account/password): the current one must match, and every
// other session of the account ends at once (rows deleted, gateway caches tombstoned), so a session
// stolen before the change dies with it. The caller's own session, when it is one, stays.
// Wrong current passwords spend the account's sign-in budget, so this is no side door for guessing.
import type { ChangePasswordBody } from "@kurz/contracts";
import { unauthorized } from "@kurz/service-kit";
import { requireStrongPassword } from "./account-password.ts";
import type { AuthDeps } from "./auth-deps.ts";
import { hashPassword } from "./passwords.ts";
import { endSessions } from "./sessions.ts";
import { passwordMatches } from "./sign-in.ts";
import { checkSigninBudget, recordSigninFailure } from "./signin-limits.ts";

export async function changePassword(
  deps: AuthDeps,
  identity: { accountId: string; sessionId: string | null },
  body: ChangePasswordBody,
  clientHash: string | null,
): Promise<void> {
  const account = await deps.prisma.account.findUnique({
    where: { id: identity.accountId },
    select: { email: true, passwordHash: true },
  });
  if (!account) throw unauthorized("Unknown account");
  requireStrongPassword(body.new_password, { field: "new_password", email: account.email });
  await checkSigninBudget(deps.redis, deps.signinLimits, account.email, clientHash);
  if (!(await passwordMatches(account.passwordHash, body.current_password))) {
    await recordSigninFailure(deps.redis, deps.signinLimits, account.email, clientHash);
    throw unauthorized("The current password is wrong");
  }
  const passwordHash = await hashPassword(body.new_password);
  await deps.prisma.account.update({ where: { id: identity.accountId }, data: { passwordHash } });
  await endSessions(deps, { accountId: identity.accountId, keep: identity.sessionId });
}
