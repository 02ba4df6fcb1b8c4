// /api/account: the older API's account resource. Records in contracts'
// routes-legacy.ts, use cases in accounts/get-account.ts and accounts/update-email-and-password.ts; this file turns accounts into answers.
import { createHash } from "node:crypto";
import { LEGACY_NO_EXPIRY, type LegacyAccount, ROUTES, toLegacyDateTime } from "@kurz/contracts";
import type { Account, PrismaClient } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { getAccount } from "../../accounts/get-account.ts";
import { updateEmailAndPassword } from "../../accounts/update-email-and-password.ts";
import { legacyMessage, legacyOk } from "./legacy-envelope.ts";

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

export function legacyAccountRoutes(deps: { prisma: PrismaClient; redis: Redis }): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.legacyGetAccount, async ({ identity }) =>
      legacyOk({ data: toLegacyAccount(await getAccount(prisma, identity.accountId)) }),
    ),
    route(ROUTES.legacyUpdateAccount, async ({ identity, body }) => {
      await updateEmailAndPassword(deps, identity, body);
      return legacyMessage("Account has been successfully updated.");
    }),
  ];
}
