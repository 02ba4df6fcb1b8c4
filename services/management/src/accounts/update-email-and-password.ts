// Changing the account's e-mail address and/or password (the older API's PUT /api/account/update).
import type { LegacyAccountUpdateBody } from "@kurz/contracts";
import { isRecordMissing, isUniqueViolation, type PrismaClient } from "@kurz/db";
import { conflict } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { hashPassword } from "../security/passwords.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import { requireStrongPassword } from "./account-password.ts";
import { getAccount, unknownAccount } from "./get-account.ts";

/**
 * E-mail addresses are stored trimmed and lower-cased; 409 when another account has it. A new
 * password must not be easy to guess for the account's address (the new one when both change), and
 * ends every session of the account (the caller holds a key, not a session).
 */
export async function updateEmailAndPassword(
  deps: { prisma: PrismaClient; redis: Redis },
  accountId: string,
  body: LegacyAccountUpdateBody,
): Promise<void> {
  const data: { email?: string; passwordHash?: string } = {};
  if (body.email !== undefined) data.email = body.email.trim().toLowerCase();
  const { prisma } = deps;
  if (body.password !== undefined) {
    const email = data.email ?? (await getAccount(prisma, accountId)).email;
    requireStrongPassword(body.password, { field: "password", email });
    data.passwordHash = await hashPassword(body.password);
  }
  try {
    await prisma.account.update({ where: { id: accountId }, data });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This e-mail address is already in use");
    if (isRecordMissing(err)) throw unknownAccount();
    throw err;
  }
  if (data.passwordHash !== undefined) await endSessions(deps, { accountId });
}
