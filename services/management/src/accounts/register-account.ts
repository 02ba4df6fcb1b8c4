// Sign-up (a key comes with every registration): the user, their first workspace (SPEC's account)
// with them as its owner, its first API key (returned once) and a first session, in one transaction.
// E-mail addresses are unique among users without regard to case because they are stored lower-case
// (contracts' Email lowers them).
import type { CreatedApiKey, RegisterBody, Session } from "@kurz/contracts";
import { isUniqueViolation } from "@kurz/db";
import { conflict, forbidden } from "@kurz/service-kit";
import { asUser, recordAudit } from "../audit/record-audit.ts";
import { generateApiKey, toApiKeyItem } from "../keys/api-keys.ts";
import { hashPassword } from "../security/passwords.ts";
import { recogniseDevice } from "../sessions/known-devices.ts";
import { issueSession, toSession } from "../sessions/sessions.ts";
import { auditSignedIn } from "../sessions/sign-in-audit.ts";
import { accountOverview } from "./account-overview.ts";
import { requireStrongPassword } from "./account-password.ts";
import type { AuthDeps } from "./auth-deps.ts";
import { firstWorkspace } from "./create-account.ts";

export async function registerAccount(deps: AuthDeps, body: RegisterBody, device: string | null) {
  if (deps.signup === "closed") {
    throw forbidden("Sign-up is closed on this server; ask its operator for an account");
  }
  await requireStrongPassword(body.password, { field: "password", email: body.email });
  const passwordHash = await hashPassword(body.password);
  const { key, hash, prefix } = generateApiKey();
  let created: { accountId: string; apiKey: CreatedApiKey; session: Session; token: string };
  try {
    created = await deps.prisma.$transaction(async (tx) => {
      const user = await tx.user.create({ data: { email: body.email, passwordHash } });
      const account = await tx.account.create({
        data: firstWorkspace(user, { hash, prefix }, deps.keyLimits),
        include: { apiKeys: true },
      });
      const issued = await issueSession(tx, user.id, deps.sessionTtlMs);
      await recordAudit(tx, {
        accountId: account.id,
        action: "workspace.created",
        resourceType: "workspace",
        resourceId: account.id,
        details: { via: "sign_up" },
        actor: asUser(user.id),
      });
      await auditSignedIn(tx, user.id, issued.row.id, "sign_up");
      return {
        accountId: account.id,
        apiKey: { ...toApiKeyItem(account.apiKeys[0]!), key },
        session: toSession(issued.row),
        token: issued.token,
      };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("An account with this e-mail address already exists");
    throw err;
  }
  const account = await accountOverview(deps.prisma, created.accountId, deps.keyLimits);
  const known = await recogniseDevice(deps.prisma, created.session.user_id, device);
  return {
    account,
    api_key: created.apiKey,
    session: created.session,
    token: created.token,
    device: known.token,
  };
}
