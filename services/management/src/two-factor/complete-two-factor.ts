// POST /api/v1/auth/login/two-factor: the password step's challenge with one second factor signs in. A wrong
// or reused code spends the account's sign-in budget, the one wrong passwords spend (429 once it is
// spent, before any check), so guessing six digits or a recovery code is as slow as guessing the
// password. A TOTP step once accepted is refused after (replay).
import type { CompleteTwoFactorBody } from "@kurz/contracts";
import { unauthorized } from "@kurz/service-kit";
import { finishSignIn, type SignInClient, type SignInDeps } from "../sessions/finish-sign-in.ts";
import { auditSignInFailed } from "../sessions/sign-in-audit.ts";
import { checkSigninBudget, clearAccountFailures, recordSigninFailure } from "../sessions/signin-limits.ts";
import { challengeGone, consumeChallenge, readChallenge } from "./challenge.ts";
import type { TwoFactorDeps } from "./factors.ts";
import { verifyAssertion } from "./passkey-assertion.ts";
import { useRecoveryCode } from "./recovery-codes.ts";
import { useTotpCode } from "./totp.ts";

export const wrongSecondFactor = () => unauthorized("The code is wrong or was already used");

export async function completeTwoFactor(
  deps: SignInDeps & TwoFactorDeps,
  body: CompleteTwoFactorBody,
  client: SignInClient,
  now = new Date(),
) {
  const state = await readChallenge(deps.redis, body.challenge);
  const user = await deps.prisma.user.findUnique({
    where: { id: state.userId },
    select: { id: true, email: true },
  });
  if (!user) throw challengeGone();
  await checkSigninBudget(deps.redis, deps.signinLimits, user.email, client.clientHash);
  let passed: boolean;
  if ("code" in body) passed = await useTotpCode(deps, user.id, body.code, now);
  else if ("recovery_code" in body)
    passed = await useRecoveryCode(deps.prisma, user.id, body.recovery_code, now);
  else {
    passed =
      state.webauthnChallenge !== null &&
      (await verifyAssertion(deps, body.passkey, state.webauthnChallenge, {
        userId: user.id,
        requireUserVerification: false,
        now,
      })) === user.id;
  }
  if (!passed) {
    await auditSignInFailed(deps.prisma, user.id, "two_factor");
    await recordSigninFailure(deps.redis, deps.signinLimits, user.email, client.clientHash);
    throw "passkey" in body ? unauthorized("This passkey did not sign in: try again") : wrongSecondFactor();
  }
  if (!(await consumeChallenge(deps.redis, body.challenge))) throw challengeGone();
  await clearAccountFailures(deps.redis, deps.signinLimits, user.email);
  return finishSignIn(deps, user, client, "two_factor");
}
