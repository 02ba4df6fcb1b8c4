// API keys: `kurz_live_` + 32 random base62 characters. Only a SHA-256 of the key is stored: keys are
// 190 bits of randomness, so a slow password hash would add latency without adding safety.
import { createHash, randomInt } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_PREFIX = "kurz_live_";
export const KEY_PREFIX_LENGTH = 14;
export const MAX_ACTIVE_KEYS = 10;

export function randomBase62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = KEY_PREFIX + randomBase62(32);
  return { key, hash: hashApiKey(key), prefix: key.slice(0, KEY_PREFIX_LENGTH) };
}

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");
