// POST /api/v1/auth/email: a signed-in user asks to sign in with another address. The current password
// is required (a wrong one spends the sign-in budgets); the new address gets a single-use link, valid an
// hour, and nothing changes until it is followed (confirm-email-change.ts), so an address is only ever
// one its user reads. A newer request replaces the pending one.
import { PASSWORD_RESET_MINUTES } from "@kurz/contracts";
import { conflict, serviceUnavailable, validation } from "@kurz/service-kit";
import { recordUserAudit } from "../audit/record-audit.ts";
import { emailChangeMail } from "../mail/email-change-mail.ts";
import { spendMailBudget } from "../mail/mail-budget.ts";
import type { Mailer } from "../mail/mailer.ts";
import { hashToken, newToken } from "../security/tokens.ts";
import { verifyCurrentPassword } from "../sessions/sudo.ts";
import type { AuthDeps } from "./auth-deps.ts";

export const confirmEmailUrl = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/login#email=${token}`;

export async function changeEmail(
  deps: AuthDeps & { mailer: Mailer | null },
  userId: string,
  body: { email: string; current_password: string },
  clientHash: string | null,
  now = new Date(),
): Promise<{ requested: true; email: string }> {
  const { mailer, prisma } = deps;
  if (mailer === null) {
    throw serviceUnavailable(
      "Changing the e-mail address needs outgoing e-mail, which this server has not set up",
    );
  }
  const { email: current } = await verifyCurrentPassword(deps, userId, body.current_password, clientHash);
  if (body.email === current) throw validation("This is already your e-mail address");
  if (await prisma.user.findUnique({ where: { email: body.email }, select: { id: true } })) {
    throw conflict("This e-mail address is already in use");
  }
  await spendMailBudget(deps.redis, "email-change", body.email, clientHash);
  const token = newToken();
  const tokenHash = hashToken(token);
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_MINUTES * 60_000);
  await prisma.$transaction(async (tx) => {
    await tx.emailChange.deleteMany({ where: { userId } });
    await tx.emailChange.create({ data: { tokenHash, userId, newEmail: body.email, expiresAt } });
    await recordUserAudit(tx, userId, {
      action: "user.email_change_requested",
      resourceType: "user",
      resourceId: userId,
    });
  });
  try {
    await mailer.send(
      emailChangeMail({
        to: body.email,
        from: current,
        confirmUrl: confirmEmailUrl(deps.baseUrl, token),
        expiresAt,
      }),
    );
  } catch {
    await prisma.emailChange.deleteMany({ where: { tokenHash } });
    throw serviceUnavailable("The confirmation could not be e-mailed; retry shortly");
  }
  return { requested: true, email: body.email };
}
