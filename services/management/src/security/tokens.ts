// The bearer tokens Kurz hands out and keeps only a hash of (sessions, invitations, password resets,
// e-mail address changes, browsers' device tokens): 256 random bits, base64url (43 characters), and
// their SHA-256 hex. They are high-entropy, so a fast hash is enough: a leaked table opens nothing.
import { createHash, randomBytes } from "node:crypto";

export const newToken = (): string => randomBytes(32).toString("base64url");

export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");
