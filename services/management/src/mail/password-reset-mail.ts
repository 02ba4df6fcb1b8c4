// The password reset e-mail: the link that sets a new password, once, within the hour.
import type { Mail } from "./mailer.ts";

export function passwordResetMail(input: { to: string; resetUrl: string; expiresAt: Date }): Mail {
  return {
    to: input.to,
    subject: "Reset your Kurz password",
    text: [
      "Someone asked to reset the password of your Kurz account. To choose a new one, open this link (it works once):",
      input.resetUrl,
      "",
      `It expires on ${input.expiresAt.toUTCString()}. Setting a new password signs you out everywhere.`,
      "If you did not ask for this, ignore this message: your password stays as it is.",
    ].join("\n"),
  };
}
