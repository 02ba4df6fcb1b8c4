// API keys: `kurz_live_` + 32 random base62 characters. Only a SHA-256 of the key is stored: keys are
// 190 bits of randomness, so a slow password hash would add latency without adding safety.
import { createHash, randomInt } from "node:crypto";
import {
  API_KEY_DISPLAY_PREFIX_LENGTH,
  API_KEY_PREFIX,
  type ApiKeyItem,
  type KeyRecord,
  SCOPES,
  type Scope,
} from "@kurz/contracts";
import type { ApiKey } from "@kurz/db";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Limits stored on a key when it is created (management's RATE_LIMIT_PER_MINUTE / _PER_HOUR). */
export interface KeyLimits {
  perMinute: number;
  perHour: number;
}

export const keyLimitsFrom = (config: {
  RATE_LIMIT_PER_MINUTE: number;
  RATE_LIMIT_PER_HOUR: number;
}): KeyLimits => ({ perMinute: config.RATE_LIMIT_PER_MINUTE, perHour: config.RATE_LIMIT_PER_HOUR });

export function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = API_KEY_PREFIX + randomBase62(32);
  return { key, hash: hashApiKey(key), prefix: key.slice(0, API_KEY_DISPLAY_PREFIX_LENGTH) };
}

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** What the gateway caches and authenticates against. */
export function toKeyRecord(key: ApiKey): KeyRecord {
  return {
    key_id: key.id,
    account_id: key.accountId,
    user_id: key.createdByUserId,
    scopes: knownScopes(key.scopes),
    name: key.name,
    rate_limit_per_minute: key.rateLimitPerMinute,
    rate_limit_per_hour: key.rateLimitPerHour,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked: key.revokedAt !== null,
  };
}

/** The usage list item; `recentUseMs` is a use the gateway has recorded but not yet flushed. */
export function toApiKeyItem(key: ApiKey, recentUseMs?: number): ApiKeyItem {
  const stored = key.lastUsedAt?.getTime();
  const lastUsed = Math.max(stored ?? -1, recentUseMs ?? -1);
  return {
    id: key.id,
    name: key.name,
    key_prefix: key.keyPrefix,
    last_used_at: lastUsed >= 0 ? new Date(lastUsed).toISOString() : null,
    rate_limit_per_minute: key.rateLimitPerMinute,
    rate_limit_per_hour: key.rateLimitPerHour,
    expires_at: key.expiresAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
    scopes: knownScopes(key.scopes),
    created_by: key.createdByUserId,
  };
}

/** The stored scopes this build knows, in SCOPES order: a retired name grants nothing. */
export const knownScopes = (stored: readonly string[]): Scope[] => SCOPES.filter((s) => stored.includes(s));

/** Neither revoked nor expired: the keys that count towards the limit of MAX_ACTIVE_KEYS. */
export const activeKeyWhere = (accountId: string, now = new Date()) => ({
  accountId,
  revokedAt: null,
  OR: [{ expiresAt: null }, { expiresAt: { gt: now } }],
});
