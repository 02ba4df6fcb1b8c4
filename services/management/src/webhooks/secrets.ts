// Webhook signing secrets (docs/webhooks.md, "Secrets"). Kurz must sign with a secret, so unlike API
// keys it cannot keep only a hash: each secret is stored encrypted with AES-256-GCM under a key derived
// (HKDF-SHA256) from WEBHOOK_SECRETS_KEY, which lives only in management's environment. A database dump
// alone reveals no secret; the clear secret is returned once, at creation and at rotation.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const SECRET_BYTES = 32;
/** `whsec_` plus the first few base64 characters: enough to tell secrets apart, useless to sign. */
const DISPLAY_PREFIX_LENGTH = 10;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString("base64")}`;
}

export const secretPrefix = (secret: string): string => secret.slice(0, DISPLAY_PREFIX_LENGTH);

/** The HMAC key a `whsec_` secret stands for (Standard Webhooks: the base64 after the prefix). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ""), "base64");
}

/**
 * Seals secrets Kurz must read back. Each purpose ("webhook secrets", "totp") gets a key of its own
 * from the one passphrase, so a sealed value of one cannot be opened as the other's.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(passphrase: string, purpose = "webhook secrets") {
    // A fixed salt is fine: the input is a high-entropy secret, HKDF only shapes it into a key. The
    // info string of "webhook secrets" is the one every stored webhook secret was sealed under.
    this.key = Buffer.from(hkdfSync("sha256", passphrase, "kurz", `kurz ${purpose} v1`, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64")).join(".");
  }

  /** Throws when the box was sealed under another key or tampered with. */
  open(sealed: string): string {
    const [iv, tag, body] = sealed.split(".").map((p) => Buffer.from(p, "base64"));
    if (!iv || !tag || !body) throw new Error("malformed sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
  }
}
