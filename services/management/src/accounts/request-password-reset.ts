// POST /api/v1/auth/password-reset: e-mails a single-use reset link to the address if a user has it.
// The answer and its timing are the same either way: the work for an existing user (a row, a message)
// happens after the answer, and its failure is only logged. Requests are budgeted per address and per
// client, so the route cannot be used to flood someone's mailbox.
import { PASSWORD_RESET_MINUTES } from "@kurz/contracts";
import type { Logger } from "@kurz/service-kit";
import { serviceUnavailable } from "@kurz/service-kit";
import { asUser, recordUserAudit } from "../audit/record-audit.ts";
import { spendMailBudget } from "../mail/mail-budget.ts";
import type { Mailer } from "../mail/mailer.ts";
import { passwordResetMail } from "../mail/password-reset-mail.ts";
import { hashToken, newToken } from "../security/tokens.ts";
import type { AuthDeps } from "./auth-deps.ts";

/** The dashboard page that sets the new password; the token rides in the fragment, which no server logs. */
export const resetUrl = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/login#reset=${token}`;

export async function requestPasswordReset(
  deps: Pick<AuthDeps, "prisma" | "redis" | "baseUrl"> & { mailer: Mailer | null; logger: Logger },
  email: string,
  clientHash: string | null,
  now = new Date(),
): Promise<{ requested: true }> {
  if (deps.mailer === null) {
    throw serviceUnavailable(
      "Password reset needs outgoing e-mail, which this server has not set up: ask its operator",
    );
  }
  await spendMailBudget(deps.redis, "password-reset", email, clientHash);
  const { mailer } = deps;
  void (async () => {
    const user = await deps.prisma.user.findUnique({ where: { email }, select: { id: true } });
    if (!user) return;
    const token = newToken();
    const expiresAt = new Date(now.getTime() + PASSWORD_RESET_MINUTES * 60_000);
    await deps.prisma.$transaction(async (tx) => {
      await tx.passwordReset.create({ data: { tokenHash: hashToken(token), userId: user.id, expiresAt } });
      await recordUserAudit(tx, user.id, {
        action: "user.password_reset_requested",
        resourceType: "user",
        resourceId: user.id,
        actor: asUser(user.id),
      });
    });
    await mailer.send(passwordResetMail({ to: email, resetUrl: resetUrl(deps.baseUrl, token), expiresAt }));
  })().catch((err: unknown) => deps.logger.warn({ err: String(err) }, "password reset e-mail not sent"));
  return { requested: true };
}
