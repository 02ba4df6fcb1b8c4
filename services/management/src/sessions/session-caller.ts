// The signed-in user behind a session route's identity.
import { type KeyIdentity, unauthorized } from "@kurz/service-kit";

/** The session's user, session and workspace; 401 when the gateway named no session or user. */
export function sessionCaller(identity: KeyIdentity): {
  userId: string;
  sessionId: string;
  accountId: string;
} {
  const { userId, sessionId, accountId } = identity;
  if (userId === null || sessionId === null) throw unauthorized("Sign in: this route needs a session");
  return { userId, sessionId, accountId };
}
