// DELETE /api/v1/auth/two-factor/totp: removes the authenticator app (with the password re-entered:
// a stolen cookie must not be able to strip the second factor). The recovery codes go with it unless
// passkeys remain, for which they still stand in.
import { notFound } from "@kurz/service-kit";
import { requireRecentPassword } from "../sessions/sudo.ts";
import { factorsChanged, recordTwoFactorChange, type TwoFactorDeps } from "./factors.ts";
import type { UserCaller } from "./start-totp.ts";

export async function disableTotp(
  deps: TwoFactorDeps,
  caller: UserCaller,
  currentPassword: string | undefined,
  now = new Date(),
): Promise<{ disabled: true }> {
  await requireRecentPassword(deps, caller, currentPassword, caller.clientHash, now);
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.userTotp.deleteMany({ where: { userId: caller.userId } });
    if (count === 0) throw notFound("No authenticator app is set up");
    await recordTwoFactorChange(tx, caller.userId, "totp_disabled");
    if ((await tx.passkey.count({ where: { userId: caller.userId } })) === 0) {
      await tx.recoveryCode.deleteMany({ where: { userId: caller.userId } });
    }
  });
  await factorsChanged(deps, caller.userId);
  return { disabled: true };
}
