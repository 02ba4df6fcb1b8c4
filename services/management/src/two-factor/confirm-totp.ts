// POST /api/v1/auth/two-factor/totp/confirm: the first code from the app proves it holds the secret;
// two-factor sign-in is then on and the recovery codes are answered, once. The confirming code's step
// counts as used. A wrong code spends the account's sign-in budget like a wrong password.
import type { RecoveryCodes } from "@kurz/contracts";
import { apiError, conflict, notFound, unauthorized } from "@kurz/service-kit";
import { checkSigninBudget, recordSigninFailure } from "../sessions/signin-limits.ts";
import { factorsChanged, recordTwoFactorChange, type TwoFactorDeps } from "./factors.ts";
import { replaceRecoveryCodes } from "./recovery-codes.ts";
import type { UserCaller } from "./start-totp.ts";
import { matchingStep, openSecret } from "./totp.ts";

export async function confirmTotp(
  deps: TwoFactorDeps,
  caller: UserCaller,
  code: string,
  now = new Date(),
): Promise<RecoveryCodes> {
  const user = await deps.prisma.user.findUnique({
    where: { id: caller.userId },
    select: { email: true, totp: true },
  });
  if (!user) throw unauthorized("Unknown user");
  if (!user.totp)
    throw notFound("No authenticator app is being set up: start with POST /api/v1/auth/two-factor/totp");
  if (user.totp.confirmedAt) throw conflict("The authenticator app is already confirmed");
  await checkSigninBudget(deps.redis, deps.signinLimits, user.email, caller.clientHash);
  const secret = openSecret(deps.totpSecrets, user.totp.secretSealed);
  const step = secret === null ? null : matchingStep(secret, code, now);
  if (step === null) {
    await recordSigninFailure(deps.redis, deps.signinLimits, user.email, caller.clientHash);
    throw apiError("FORBIDDEN", "That code does not match: check the app's clock and enter the current code");
  }
  const codes = await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.userTotp.updateMany({
      where: { userId: caller.userId, confirmedAt: null, secretSealed: user.totp!.secretSealed },
      data: { confirmedAt: now, lastUsedStep: BigInt(step) },
    });
    if (count === 0) throw conflict("The authenticator app changed meanwhile: start again");
    await recordTwoFactorChange(tx, caller.userId, "totp_enabled");
    return replaceRecoveryCodes(tx, caller.userId);
  });
  await factorsChanged(deps, caller.userId);
  return { recovery_codes: codes };
}
