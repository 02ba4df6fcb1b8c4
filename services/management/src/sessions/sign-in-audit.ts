// A sign-in's audit events (docs/workspaces.md, "Audit log"): one in each workspace of the person, as
// each workspace's admins answer for who enters it. A failed sign-in names the person whose e-mail was
// tried (an unknown e-mail has no workspace, and records nothing).
import type { Prisma, PrismaClient } from "@kurz/db";
import { asUser, recordUserAudit } from "../audit/record-audit.ts";

/** How a person signed in: the audit event's `details.via`. */
export type SignInWay =
  | "password"
  | "two_factor"
  | "passkey"
  | "sso"
  | "sign_up"
  | "password_reset"
  | "invitation";

/** In the transaction that issued session `sessionId`. */
export function auditSignedIn(
  tx: Prisma.TransactionClient,
  userId: string,
  sessionId: string,
  via: SignInWay,
): Promise<void> {
  return recordUserAudit(tx, userId, {
    action: "session.signed_in",
    resourceType: "session",
    resourceId: sessionId,
    details: { via },
    actor: asUser(userId),
  });
}

/**
 * A wrong password for a known user (signing in, accepting an invitation, or confirming it in a
 * session): nothing else changes, so it is a statement of its own.
 */
export function auditSignInFailed(
  prisma: PrismaClient,
  userId: string,
  via: "password" | "two_factor" | "invitation" | "password_confirmation" = "password",
): Promise<void> {
  return recordUserAudit(prisma, userId, {
    action: "session.sign_in_failed",
    resourceType: "user",
    resourceId: userId,
    details: { via },
    actor: asUser(userId),
  });
}
