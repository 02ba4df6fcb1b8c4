// Changing the caller's password (POST /api/v1/account/password; with a key, its creator's): the
// current one must match, and every other session of the user ends at once (rows deleted, gateway
// caches tombstoned), so a session stolen before the change dies with it. The caller's own session,
// when it is one, stays. With `revoke_keys` every API key the user made is revoked too, in every
// workspace: a key outlives any password change. Wrong current passwords spend the user's sign-in
// budget, so this is no side door for guessing.
import type { ChangePasswordBody, PasswordChanged } from "@kurz/contracts";
import { recordUserAudit } from "../audit/record-audit.ts";
import { revokeAllApiKeys } from "../keys/revoke-api-key.ts";
import { hashPassword } from "../security/passwords.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import { verifyCurrentPassword } from "../sessions/sudo.ts";
import { requireStrongPassword } from "./account-password.ts";
import type { AuthDeps } from "./auth-deps.ts";

export async function changePassword(
  deps: AuthDeps,
  identity: { userId: string | null; sessionId: string | null },
  body: ChangePasswordBody,
  clientHash: string | null,
): Promise<PasswordChanged> {
  const { userId } = identity;
  const { email } = await verifyCurrentPassword(deps, userId, body.current_password, clientHash);
  if (userId === null) throw new Error("verifyCurrentPassword passed without a user");
  await requireStrongPassword(body.new_password, { field: "new_password", email });
  const passwordHash = await hashPassword(body.new_password);
  await deps.prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: userId }, data: { passwordHash } });
    await recordUserAudit(tx, userId, {
      action: "user.password_changed",
      resourceType: "user",
      resourceId: userId,
      details: { revoke_keys: body.revoke_keys ?? false },
    });
  });
  const revoked = body.revoke_keys ? await revokeAllApiKeys(deps, { createdByUserId: userId }) : 0;
  await endSessions(deps, { userId, keep: identity.sessionId });
  return { changed: true, revoked_keys: revoked };
}
