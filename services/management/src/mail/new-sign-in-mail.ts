// The notice of a sign-in from a browser that had not signed in as the user before.
import type { Mail } from "./mailer.ts";

export function newSignInMail(input: { to: string; at: Date }): Mail {
  return {
    to: input.to,
    subject: "New sign-in to your Kurz account",
    text: [
      `Your Kurz account (${input.to}) was signed in from a new browser on ${input.at.toUTCString()}.`,
      "If this was you, there is nothing to do.",
      "If not, change your password at once (Account, or the sign-in page's password reset): that ends every session.",
    ].join("\n"),
  };
}
