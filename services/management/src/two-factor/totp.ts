// TOTP codes (RFC 6238: SHA-1, six digits, 30-second steps) with otpauth. A code is accepted for the
// current step and one either side (clock drift), and each step once: the step a code matched is
// stored, and a code of that step or an earlier one is refused, so a code seen over a shoulder or in
// a log cannot be used again within its window.
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { Secret, TOTP } from "otpauth";
import type { SecretBox } from "../webhooks/secrets.ts";

/** 160 bits, the size RFC 4226 recommends for an HMAC-SHA-1 key. */
const SECRET_BYTES = 20;

export function totpFor(secretBase32: string, label = "", issuer = "Kurz"): TOTP {
  return new TOTP({
    issuer,
    label,
    algorithm: "SHA1",
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

export const newTotpSecret = (): string => new Secret({ size: SECRET_BYTES }).base32;

/**
 * The sealed secret in the clear; null when it no longer opens (WEBHOOK_SECRETS_KEY changed): no code
 * then matches, and the user signs in with a recovery code or a passkey and sets the app up again.
 */
export function openSecret(box: SecretBox, sealed: string): string | null {
  try {
    return box.open(sealed);
  } catch {
    return null;
  }
}

/** The step `code` belongs to at `now` (within one step either side), or null when it matches none. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  const timestamp = now.getTime();
  const delta = totpFor(secretBase32).validate({ token: code, timestamp, window: 1 });
  if (delta === null) return null;
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp }) + delta;
}

/**
 * True when `code` is the user's confirmed app's for `now` and its step is later than any used
 * before; the step is then recorded in the same statement, so of two requests with one code only one
 * passes.
 */
export async function useTotpCode(
  deps: { prisma: PrismaClient; totpSecrets: SecretBox },
  userId: string,
  code: string,
  now: Date,
): Promise<boolean> {
  const row = await deps.prisma.userTotp.findUnique({ where: { userId } });
  if (!row?.confirmedAt) return false;
  const secret = openSecret(deps.totpSecrets, row.secretSealed);
  const step = secret === null ? null : matchingStep(secret, code, now);
  if (step === null) return false;
  const { count } = await deps.prisma.userTotp.updateMany({
    where: {
      userId,
      confirmedAt: { not: null },
      OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: BigInt(step) } }],
    },
    data: { lastUsedStep: BigInt(step) },
  });
  return count === 1;
}
