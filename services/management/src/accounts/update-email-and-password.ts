// Changing the e-mail address and/or password through the older API (PUT /api/account/update).
import type { LegacyAccountUpdateBody } from "@kurz/contracts";
import { isRecordMissing, isUniqueViolation, type PrismaClient } from "@kurz/db";
import { conflict, forbidden } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { changedFields, recordUserAudit } from "../audit/record-audit.ts";
import { hashPassword } from "../security/passwords.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import { requireStrongPassword } from "./account-password.ts";
import { unknownAccount } from "./get-account.ts";

/**
 * Changes the key creator's e-mail and/or password, and the workspace's contact e-mail with the
 * e-mail (what this API's account answer shows). E-mail addresses are stored trimmed and lower-cased;
 * 409 when another user has it. A new password must not be easy to guess for the user's address (the
 * new one when both change), and ends every session of the user (the caller holds a key, not a session).
 */
export async function updateEmailAndPassword(
  deps: { prisma: PrismaClient; redis: Redis },
  caller: { accountId: string; userId: string | null },
  body: LegacyAccountUpdateBody,
): Promise<void> {
  const { userId, accountId } = caller;
  if (userId === null) throw forbidden("This key's creator is no longer a user; use a key of a member");
  const data: { email?: string; passwordHash?: string } = {};
  if (body.email !== undefined) data.email = body.email.trim().toLowerCase();
  const { prisma } = deps;
  if (body.password !== undefined) {
    const email = data.email ?? (await prisma.user.findUniqueOrThrow({ where: { id: userId } })).email;
    await requireStrongPassword(body.password, { field: "password", email });
    data.passwordHash = await hashPassword(body.password);
  }
  try {
    await prisma.$transaction(async (tx) => {
      await tx.user.update({ where: { id: userId }, data });
      if (data.email !== undefined) {
        await tx.account.update({ where: { id: accountId }, data: { email: data.email } });
      }
      await recordUserAudit(tx, userId, {
        action: "user.updated",
        resourceType: "user",
        resourceId: userId,
        details: changedFields(body),
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This e-mail address is already in use");
    if (isRecordMissing(err)) throw unknownAccount();
    throw err;
  }
  if (data.passwordHash !== undefined) await endSessions(deps, { userId });
}
