// Names of the per-key rate-limit counters (docs/api.md, "Rate limits"). The gateway counts every
// request in them; management charges the extra work one request causes (bulk title fetches) to the
// same counters, so both must spell the Redis keys exactly alike: this is the one place that does.

export interface RateLimitSpan {
  /** "1m", "1h": also the `details.window` of a 429. */
  name: string;
  seconds: number;
}

export const RATE_LIMIT_WINDOWS = {
  minute: { name: "1m", seconds: 60 },
  hour: { name: "1h", seconds: 3600 },
} as const satisfies Record<string, RateLimitSpan>;

/** Whose budget: the v1 and the older API count a key's requests separately. */
export const rateLimitSubject = (api: "v1" | "legacy", keyId: string): string => `${api}:${keyId}`;

/**
 * The counter of `subject` in `window` at `nowSec` (unix seconds). Windows are aligned to the clock,
 * so every instance that counts agrees on the bucket.
 */
export function rateLimitKey(subject: string, window: RateLimitSpan, nowSec: number): string {
  return `rl:${subject}:${window.name}:${Math.floor(nowSec / window.seconds)}`;
}

/** A counter outlives its window by a few seconds so a clock slightly behind still finds it. */
export const rateLimitKeyTtlSeconds = (window: RateLimitSpan): number => window.seconds + 5;

/**
 * The Redis script that counts one request in each window (KEYS: window keys; ARGV: their TTLs) and
 * returns the counts. Atomic, so every gateway instance sees one count per window.
 */
export const RATE_LIMIT_SCRIPT = `
local out = {}
for i, key in ipairs(KEYS) do
  local n = redis.call('INCR', key)
  if n == 1 then redis.call('EXPIRE', key, ARGV[i]) end
  out[i] = n
end
return out`;
