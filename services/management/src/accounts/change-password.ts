// Changing the password (POST /api/v1/account/password): the current one must match, and every
// other session of the account ends at once (rows deleted, gateway caches tombstoned), so a session
// stolen before the change dies with it. The caller's own session, when it is one, stays. With
// `revoke_keys` every API key of the account is revoked too: a key outlives any password change.
// Wrong current passwords spend the account's sign-in budget, so this is no side door for guessing.
import type { ChangePasswordBody, PasswordChanged } from "@kurz/contracts";
import { revokeAllApiKeys } from "../keys/revoke-api-key.ts";
import { hashPassword } from "../security/passwords.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import { verifyCurrentPassword } from "../sessions/sudo.ts";
import { requireStrongPassword } from "./account-password.ts";
import type { AuthDeps } from "./auth-deps.ts";

export async function changePassword(
  deps: AuthDeps,
  identity: { accountId: string; sessionId: string | null },
  body: ChangePasswordBody,
  clientHash: string | null,
): Promise<PasswordChanged> {
  const { email } = await verifyCurrentPassword(deps, identity.accountId, body.current_password, clientHash);
  requireStrongPassword(body.new_password, { field: "new_password", email });
  const passwordHash = await hashPassword(body.new_password);
  await deps.prisma.account.update({ where: { id: identity.accountId }, data: { passwordHash } });
  const revoked = body.revoke_keys ? await revokeAllApiKeys(deps, identity.accountId) : 0;
  await endSessions(deps, { accountId: identity.accountId, keep: identity.sessionId });
  return { changed: true, revoked_keys: revoked };
}
