// POST /api/v1/auth/two-factor/recovery-codes: a new set (the old stop working), with the password
// re-entered; only for a user with a second factor, for whom the codes stand in.
import type { RecoveryCodes } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { requireRecentPassword } from "../sessions/sudo.ts";
import { factorsOf, hasSecondFactor, recordTwoFactorChange, type TwoFactorDeps } from "./factors.ts";
import { replaceRecoveryCodes } from "./recovery-codes.ts";
import type { UserCaller } from "./start-totp.ts";

export async function regenerateRecoveryCodes(
  deps: TwoFactorDeps,
  caller: UserCaller,
  currentPassword: string | undefined,
  now = new Date(),
): Promise<RecoveryCodes> {
  await requireRecentPassword(deps, caller, currentPassword, caller.clientHash, now);
  if (!hasSecondFactor(await factorsOf(deps.prisma, caller.userId))) {
    throw notFound("Recovery codes stand in for a second factor: set one up first");
  }
  const codes = await deps.prisma.$transaction(async (tx) => {
    await recordTwoFactorChange(tx, caller.userId, "recovery_codes_regenerated");
    return replaceRecoveryCodes(tx, caller.userId);
  });
  return { recovery_codes: codes };
}
