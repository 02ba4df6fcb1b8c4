// Sign-in with e-mail and password: a fresh session on success, or for a user with a second factor a
// challenge to finish with it (two-factor/complete-two-factor.ts). An unknown address, a user without
// a password (made by the admin CLI) and a wrong password answer alike, and take alike (one argon2
// verification each), so the answer does not tell which addresses have accounts. The answer's account
// is the user's first workspace.
import type { LoginBody, TwoFactorChallenge } from "@kurz/contracts";
import { unauthorized } from "@kurz/service-kit";
import { hashPassword, verifyPassword } from "../security/passwords.ts";
import type { TwoFactorDeps } from "../two-factor/factors.ts";
import { startSecondFactor } from "../two-factor/start-second-factor.ts";
import { finishSignIn, type SignInClient, type SignInDeps } from "./finish-sign-in.ts";
import { auditSignInFailed } from "./sign-in-audit.ts";
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

export type SignInOutcome = Awaited<ReturnType<typeof finishSignIn>> | TwoFactorChallenge;

/** The password was right: a session, or the second factor's challenge for a user who has one. */
export async function afterPassword(
  deps: SignInDeps & TwoFactorDeps,
  user: { id: string; email: string },
  client: SignInClient,
): Promise<SignInOutcome> {
  const challenge = await startSecondFactor(deps, user.id);
  // The account's failed-attempt count is kept until the second factor too: otherwise the password
  // alone would reset the budget that wrong codes spend.
  if (challenge) return challenge;
  await clearAccountFailures(deps.redis, deps.signinLimits, user.email);
  return finishSignIn(deps, user, client, "password");
}

export async function signIn(
  deps: SignInDeps & TwoFactorDeps,
  body: LoginBody,
  client: SignInClient,
): Promise<SignInOutcome> {
  const { clientHash } = client;
  await checkSigninBudget(deps.redis, deps.signinLimits, body.email, clientHash);
  const user = await deps.prisma.user.findUnique({
    where: { email: body.email },
    select: { id: true, email: true, passwordHash: true },
  });
  if (!user || !(await passwordMatches(user.passwordHash, body.password))) {
    if (!user) await passwordMatches(null, body.password);
    else await auditSignInFailed(deps.prisma, user.id);
    await recordSigninFailure(deps.redis, deps.signinLimits, body.email, clientHash);
    throw invalidCredentials();
  }
  return afterPassword(deps, user, client);
}
