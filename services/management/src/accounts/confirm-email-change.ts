// POST /api/v1/auth/email/:token: the new address is confirmed and becomes the user's sign-in address,
// once; workspaces they own whose contact e-mail was the former address take the new one. Their
// sessions stay signed in (and read the new address on their next request); the former address is
// told. Unknown, used and expired links answer alike (404).
import { isUniqueViolation } from "@kurz/db";
import type { Logger } from "@kurz/service-kit";
import { conflict, notFound } from "@kurz/service-kit";
import { asUser, recordUserAudit } from "../audit/record-audit.ts";
import { emailChangedMail } from "../mail/email-change-mail.ts";
import type { Mailer } from "../mail/mailer.ts";
import { hashToken } from "../security/tokens.ts";
import { forgetCachedSessions } from "../sessions/sessions.ts";
import type { AuthDeps } from "./auth-deps.ts";

const gone = () => notFound("This link does not exist, was used or has expired");

export async function confirmEmailChange(
  deps: AuthDeps & { mailer: Mailer | null; logger: Logger },
  token: string,
  now = new Date(),
): Promise<{ changed: true; email: string }> {
  const { prisma } = deps;
  const tokenHash = hashToken(token);
  let changed: { userId: string; from: string; to: string };
  try {
    changed = await prisma.$transaction(async (tx) => {
      const [pending] = await tx.emailChange.findMany({
        where: { tokenHash, expiresAt: { gt: now } },
        include: { user: { select: { email: true } } },
      });
      if (!pending) throw gone();
      const { count } = await tx.emailChange.deleteMany({ where: { tokenHash } });
      if (count === 0) throw gone();
      const from = pending.user.email;
      const to = pending.newEmail;
      await tx.user.update({ where: { id: pending.userId }, data: { email: to } });
      await tx.account.updateMany({
        where: { email: from, memberships: { some: { userId: pending.userId, role: "owner" } } },
        data: { email: to },
      });
      await recordUserAudit(tx, pending.userId, {
        action: "user.email_changed",
        resourceType: "user",
        resourceId: pending.userId,
        details: { from, to },
        actor: asUser(pending.userId),
      });
      return { userId: pending.userId, from, to };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This e-mail address was taken meanwhile");
    throw err;
  }
  await forgetCachedSessions(prisma, deps.redis, changed.userId);
  deps.mailer
    ?.send(emailChangedMail({ to: changed.from, now: changed.to }))
    .catch((err: unknown) => deps.logger.warn({ err: String(err) }, "e-mail change notice not sent"));
  return { changed: true, email: changed.to };
}
