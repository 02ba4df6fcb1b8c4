// GET /api/v1/auth/two-factor: the signed-in user's second factors.
import type { TwoFactorStatus } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { factorsOf, hasSecondFactor } from "./factors.ts";

export async function twoFactorStatus(prisma: PrismaClient, userId: string): Promise<TwoFactorStatus> {
  const factors = await factorsOf(prisma, userId);
  return {
    totp: factors.totp,
    recovery_codes_left: factors.recoveryCodesLeft,
    passkeys: factors.passkeys,
    enabled: hasSecondFactor(factors),
  };
}
