// Recovery codes: RECOVERY_CODE_COUNT random codes of ten letters and digits (about 51 bits each),
// shown once; only their SHA-256 is kept, which is enough for codes of that entropy behind a sign-in
// budget. Each works once, and making a new set deletes the old.
import { randomInt } from "node:crypto";
import { RECOVERY_CODE_COUNT } from "@kurz/contracts";
import type { Prisma, PrismaClient } from "@kurz/db";
import { hashToken } from "../security/tokens.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

function newRecoveryCode(): string {
  let code = "";
  for (let i = 0; i < 10; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** The stored form: hyphens, spaces and case are forgiven when a code is typed. */
const hashCode = (userId: string, code: string) =>
  hashToken(`${userId}:${code.replace(/[\s-]/g, "").toLowerCase()}`);

/** Replaces the user's recovery codes with new ones (inside the caller's transaction) and answers them. */
export async function replaceRecoveryCodes(tx: Prisma.TransactionClient, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await tx.recoveryCode.deleteMany({ where: { userId } });
  await tx.recoveryCode.createMany({
    data: codes.map((code) => ({ userId, codeHash: hashCode(userId, code) })),
  });
  return codes;
}

/** True when `code` is one of the user's unused codes, which is then used up (once, under concurrency). */
export async function useRecoveryCode(
  prisma: PrismaClient,
  userId: string,
  code: string,
  now: Date,
): Promise<boolean> {
  const { count } = await prisma.recoveryCode.updateMany({
    where: { userId, codeHash: hashCode(userId, code), usedAt: null },
    data: { usedAt: now },
  });
  return count === 1;
}
