import * as z from "zod";

/**
 * What management writes to Redis for the redirect (write-through; Redis is a cache, never the only copy).
 * Read on every cache miss of the redirect hot path, so it is flat JSON with short members.
 */
export const RedirectRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  url: z.string(),
  active: z.boolean(),
  expires_at: z.int().nullable().meta({ description: "Epoch milliseconds; null means no expiry" }),
  password_hash: z
    .string()
    .nullable()
    .meta({ description: "argon2id encoded hash; null without a password" }),
});
export type RedirectRecord = z.infer<typeof RedirectRecord>;

export const REDIRECT_KEY_PREFIX = "link:";

export function redirectKey(code: string): string {
  return REDIRECT_KEY_PREFIX + code;
}

/**
 * Redis pub/sub channel on which management announces a changed or deleted short code (the message is
 * the code), so every redirect instance drops it from its in-process cache. Channels are not covered by
 * ioredis' keyPrefix: tests sharing a Redis see each other's messages (harmless: only cache drops).
 */
export const INVALIDATION_CHANNEL = "kurz:link-invalidated";

export function encodeRedirectRecord(record: RedirectRecord): string {
  return JSON.stringify(record);
}

/** Throws on malformed JSON or a record of another shape (a stale writer): callers treat it as a miss. */
export function decodeRedirectRecord(json: string): RedirectRecord {
  return RedirectRecord.parse(JSON.parse(json));
}
