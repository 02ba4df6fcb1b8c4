// The invitation e-mail: who invites whom to which workspace, with what role, and the link that
// accepts it (its single-use token) until it expires.
import type { Role } from "@kurz/contracts";
import type { Mail } from "./mailer.ts";

export function invitationMail(input: {
  to: string;
  workspace: string;
  inviter: string | null;
  role: Role;
  acceptUrl: string;
  expiresAt: Date;
}): Mail {
  const by = input.inviter ? `${input.inviter} invites you` : "You are invited";
  return {
    to: input.to,
    subject: `Join ${input.workspace} on Kurz`,
    text: [
      `${by} to join the workspace "${input.workspace}" on Kurz as ${input.role === "admin" ? "an" : "a"} ${input.role}.`,
      "",
      "Accept the invitation here (the link works once):",
      input.acceptUrl,
      "",
      `It expires on ${input.expiresAt.toUTCString()}. If you did not expect it, ignore this message.`,
    ].join("\n"),
  };
}
