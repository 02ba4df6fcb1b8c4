// The last step of every sign-in (password, password and second factor, passkey): a fresh session,
// the device remembered, and a sign-in from a browser that never signed in as the user, when they
// have used others, announced to them by e-mail (after the answer; a failure is only logged).
import type { Logger } from "@kurz/service-kit";
import { accountOverview } from "../accounts/account-overview.ts";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import type { Mailer } from "../mail/mailer.ts";
import { newSignInMail } from "../mail/new-sign-in-mail.ts";
import { recogniseDevice } from "./known-devices.ts";
import { issueSession, toSession } from "./sessions.ts";
import { auditSignedIn, type SignInWay } from "./sign-in-audit.ts";

export interface SignInClient {
  clientHash: string | null;
  device: string | null;
}

export type SignInDeps = AuthDeps & { mailer: Mailer | null; logger: Logger };

export async function finishSignIn(
  deps: SignInDeps,
  user: { id: string; email: string },
  client: SignInClient,
  via: SignInWay,
) {
  // The session and its audit event in one transaction: a sign-in is never unrecorded.
  const issued = await deps.prisma.$transaction(async (tx) => {
    const made = await issueSession(tx, user.id, deps.sessionTtlMs);
    await auditSignedIn(tx, user.id, made.row.id, via);
    return made;
  });
  const session = toSession(issued.row);
  const device = await recogniseDevice(deps.prisma, user.id, client.device);
  if (device.unfamiliar && deps.mailer) {
    deps.mailer
      .send(newSignInMail({ to: user.email, at: issued.row.createdAt }))
      .catch((err: unknown) => deps.logger.warn({ err: String(err) }, "new sign-in notice not sent"));
  }
  return {
    account: await accountOverview(deps.prisma, session.account_id, deps.keyLimits),
    session,
    token: issued.token,
    device: device.token,
  };
}
