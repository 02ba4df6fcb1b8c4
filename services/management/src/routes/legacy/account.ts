// /api/account: the older API's account resource (SPEC 2.7, 4.2).
import { createHash } from "node:crypto";
import {
  LEGACY_NO_EXPIRY,
  type LegacyAccount,
  LegacyAccountUpdateBody,
  toLegacyDateTime,
} from "@kurz/contracts";
import type { Account, PrismaClient } from "@kurz/db";
import { conflict, requireIdentity, unauthorized } from "@kurz/service-kit";
import { Router } from "express";
import { hashPassword } from "../../passwords.ts";
import { isRecordMissing, isUniqueViolation } from "./prisma-errors.ts";

/**
 * Kurz stores no pictures: the avatar is the Gravatar of the e-mail address (SHA-256, which Gravatar
 * accepts), with a generated identicon for addresses that have none, so it is always a working URL.
 */
export function avatarUrl(email: string): string {
  const hash = createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
  return `https://gravatar.com/avatar/${hash}?d=identicon`;
}

export function toLegacyAccount(account: Account): LegacyAccount {
  return {
    id: account.legacyId,
    email: account.email,
    // Accounts created by the admin CLI have no username; the original product answers "" then.
    username: account.username ?? "",
    avatar: avatarUrl(account.email),
    status: account.plan,
    expires: account.planExpiresAt ? toLegacyDateTime(account.planExpiresAt) : LEGACY_NO_EXPIRY,
    registered: toLegacyDateTime(account.createdAt),
  };
}

export function legacyAccountRouter(deps: { prisma: PrismaClient }): Router {
  const router = Router();
  const { prisma } = deps;

  router.get("/account", async (_req, res) => {
    const { accountId } = requireIdentity(res);
    const account = await prisma.account.findUnique({ where: { id: accountId } });
    // The key outlived its account (deleted between the gateway's cached lookup and now).
    if (!account) throw unauthorized("Unknown account");
    res.json({ error: 0, data: toLegacyAccount(account) });
  });

  router.put("/account/update", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const body = LegacyAccountUpdateBody.parse(req.body);
    const data: { email?: string; passwordHash?: string } = {};
    if (body.email !== undefined) data.email = body.email.trim().toLowerCase();
    if (body.password !== undefined) data.passwordHash = await hashPassword(body.password);
    try {
      await prisma.account.update({ where: { id: accountId }, data });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict("This e-mail address is already in use");
      if (isRecordMissing(err)) throw unauthorized("Unknown account");
      throw err;
    }
    res.json({ error: 0, message: "Account has been successfully updated." });
  });

  return router;
}
