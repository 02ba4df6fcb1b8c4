// Sign-in with e-mail and password: a fresh session on success. An unknown address, a user without a
// password (made by the admin CLI) and a wrong password answer alike, and take alike (one argon2
// verification each), so the answer does not tell which addresses have accounts. The answer's account
// is the user's first workspace.
import type { LoginBody } from "@kurz/contracts";
import { type Logger, unauthorized } from "@kurz/service-kit";
import { accountOverview } from "../accounts/account-overview.ts";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import type { Mailer } from "../mail/mailer.ts";
import { newSignInMail } from "../mail/new-sign-in-mail.ts";
import { hashPassword, verifyPassword } from "../security/passwords.ts";
import { recogniseDevice } from "./known-devices.ts";
import { issueSession, toSession } from "./sessions.ts";
import { auditSignedIn, auditSignInFailed } from "./sign-in-audit.ts";
import { checkSigninBudget, clearAccountFailures, recordSigninFailure } from "./signin-limits.ts";

export const invalidCredentials = () => unauthorized("Invalid e-mail or password");

let decoy: Promise<string> | undefined;
/** A hash no password was ever given, verified when there is no real one to verify. */
const decoyHash = () => {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  return decoy;
};

/** True when `password` is the account's; false for a wrong one or an account without a password. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  const ok = await verifyPassword(stored ?? (await decoyHash()), password).catch(() => false);
  return stored !== null && ok;
}

/**
 * A sign-in from a browser that never signed in as the user, when they have used others, is announced
 * to them by e-mail (after the answer; a failure is only logged).
 */
export async function signIn(
  deps: AuthDeps & { mailer: Mailer | null; logger: Logger },
  body: LoginBody,
  client: { clientHash: string | null; device: string | null },
) {
  const { clientHash } = client;
  await checkSigninBudget(deps.redis, deps.signinLimits, body.email, clientHash);
  const user = await deps.prisma.user.findUnique({
    where: { email: body.email },
    select: { id: true, passwordHash: true },
  });
  if (!user || !(await passwordMatches(user.passwordHash, body.password))) {
    if (!user) await passwordMatches(null, body.password);
    else await auditSignInFailed(deps.prisma, user.id);
    await recordSigninFailure(deps.redis, deps.signinLimits, body.email, clientHash);
    throw invalidCredentials();
  }
  await clearAccountFailures(deps.redis, deps.signinLimits, body.email);
  const issued = await deps.prisma.$transaction(async (tx) => {
    const session = await issueSession(tx, user.id, deps.sessionTtlMs);
    await auditSignedIn(tx, user.id, session.row.id, "password");
    return session;
  });
  const session = toSession(issued.row);
  const device = await recogniseDevice(deps.prisma, user.id, client.device);
  if (device.unfamiliar && deps.mailer) {
    deps.mailer
      .send(newSignInMail({ to: body.email, at: issued.row.createdAt }))
      .catch((err: unknown) => deps.logger.warn({ err: String(err) }, "new sign-in notice not sent"));
  }
  return {
    account: await accountOverview(deps.prisma, session.account_id, deps.keyLimits),
    session,
    token: issued.token,
    device: device.token,
  };
}
