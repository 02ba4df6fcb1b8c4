// Re-entering the password ("sudo mode", docs/api.md "Confirming the password"). A session cookie
// alone must not be enough to hand the account to someone else: minting an API key (which outlives
// sign-out) and changing the password need the current password, sent with the request or confirmed
// through POST /api/v1/auth/confirm within the last SUDO_WINDOW_MINUTES. Only a confirmation counts,
// never the sign-in itself, so a cookie stolen right after sign-in unlocks nothing. Every check of a
// password spends the account's sign-in budget when wrong, so none of this is a side door for guessing.
import { type PasswordConfirmed, SUDO_WINDOW_MINUTES } from "@kurz/contracts";
import { forbidden, unauthorized } from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import { passwordMatches } from "./sign-in.ts";
import { auditSignInFailed } from "./sign-in-audit.ts";
import { checkSigninBudget, recordSigninFailure } from "./signin-limits.ts";

export const SUDO_WINDOW_MS = SUDO_WINDOW_MINUTES * 60_000;

type SudoDeps = Pick<AuthDeps, "prisma" | "redis" | "signinLimits">;

/**
 * Who is asking: a session (`sessionId`) or an API key (`sessionId` null), for the user `userId` (a
 * key's creator; null once they are gone, when no password can be checked).
 */
export interface Caller {
  userId: string | null;
  sessionId: string | null;
}

/**
 * 403 unless `password` is the account's (429 once the account's or the client's sign-in budget is
 * spent, before any check). 403 rather than 401: the caller is signed in, and a 401 would read as
 * "your session ended" to the dashboard.
 */
export async function verifyCurrentPassword(
  deps: SudoDeps,
  userId: string | null,
  password: string,
  clientHash: string | null,
): Promise<{ email: string }> {
  if (userId === null) throw forbidden("This key's creator is no longer a user: no password to check");
  const user = await deps.prisma.user.findUnique({
    where: { id: userId },
    select: { email: true, passwordHash: true },
  });
  if (!user) throw unauthorized("Unknown user");
  await checkSigninBudget(deps.redis, deps.signinLimits, user.email, clientHash);
  if (!(await passwordMatches(user.passwordHash, password))) {
    await auditSignInFailed(deps.prisma, userId, "password_confirmation");
    await recordSigninFailure(deps.redis, deps.signinLimits, user.email, clientHash);
    throw forbidden("The current password is wrong");
  }
  return { email: user.email };
}

/** Marks the session as confirmed at `now`; 401 when it has ended meanwhile. */
async function markConfirmed(deps: SudoDeps, caller: { sessionId: string }, now: Date) {
  const { count } = await deps.prisma.session.updateMany({
    where: { id: caller.sessionId, expiresAt: { gt: now } },
    data: { confirmedAt: now },
  });
  if (count === 0) throw unauthorized("Not signed in");
}

/** POST /api/v1/auth/confirm: the password checked, the session confirmed for SUDO_WINDOW_MINUTES. */
export async function confirmPassword(
  deps: SudoDeps,
  caller: Caller & { sessionId: string },
  password: string,
  clientHash: string | null,
  now = new Date(),
): Promise<PasswordConfirmed> {
  await verifyCurrentPassword(deps, caller.userId, password, clientHash);
  await markConfirmed(deps, caller, now);
  return { confirmed_until: new Date(now.getTime() + SUDO_WINDOW_MS).toISOString() };
}

/**
 * Lets a sensitive action through for a key, for a session that sends the right `currentPassword`
 * (which also confirms the session, as /auth/confirm does), or for a session confirmed within the
 * window before `now`; 403 otherwise. A key that sends a password has it checked too: a wrong one is
 * never ignored.
 */
export async function requireRecentPassword(
  deps: SudoDeps,
  caller: Caller,
  currentPassword: string | undefined,
  clientHash: string | null,
  now = new Date(),
): Promise<void> {
  if (currentPassword !== undefined) {
    await verifyCurrentPassword(deps, caller.userId, currentPassword, clientHash);
    if (caller.sessionId !== null) await markConfirmed(deps, { sessionId: caller.sessionId }, now);
    return;
  }
  if (caller.sessionId === null) return;
  const session = await deps.prisma.session.findFirst({
    where: { id: caller.sessionId, expiresAt: { gt: now } },
    select: { confirmedAt: true },
  });
  if (!session) throw unauthorized("Not signed in");
  const confirmed = session.confirmedAt?.getTime();
  // A confirmation stamped after `now` (clocks of two instances) still counts, but only within the window.
  if (confirmed !== undefined && Math.abs(now.getTime() - confirmed) < SUDO_WINDOW_MS) return;
  throw forbidden(
    `Confirm your password first: send current_password, or confirm it with POST /api/v1/auth/confirm (valid ${SUDO_WINDOW_MINUTES} minutes)`,
  );
}
