// The e-mails of an address change: the confirmation link to the new address, and word to the former.
import type { Mail } from "./mailer.ts";

export function emailChangeMail(input: {
  to: string;
  from: string;
  confirmUrl: string;
  expiresAt: Date;
}): Mail {
  return {
    to: input.to,
    subject: "Confirm your new e-mail address for Kurz",
    text: [
      `You asked to sign in to Kurz as ${input.to} instead of ${input.from}. Confirm it here (the link works once):`,
      input.confirmUrl,
      "",
      `It expires on ${input.expiresAt.toUTCString()}. If you did not ask for this, ignore this message.`,
    ].join("\n"),
  };
}

export function emailChangedMail(input: { to: string; now: string }): Mail {
  return {
    to: input.to,
    subject: "Your Kurz e-mail address was changed",
    text: [
      `The Kurz account that used this address now signs in as ${input.now}.`,
      "If you did not do this, reset your password from the sign-in page and contact your workspace's owner.",
    ].join("\n"),
  };
}
