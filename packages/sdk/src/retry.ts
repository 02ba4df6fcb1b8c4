// When a refused request is worth sending again, and after how long. 429 means the gateway (or a
// service's own budget) refused the request before acting on it (docs/api.md, "Rate limits"), so any
// method may be sent again; 503 may come after a service began to act, so only requests that are
// safe to repeat are (the API takes no idempotency key, so a POST or PATCH is never re-sent on 503).

export interface RetryOptions {
  /** Tries in all, the first included (default 3; 1: never retry). */
  attempts?: number;
  /** The longest wait the client accepts; a longer Retry-After gives up at once (default 60 s). */
  maxDelayMs?: number;
  /** Waits `ms` (default: a timer); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** Now, in ms since the epoch, for a Retry-After given as a date (default: Date.now). */
  now?: () => number;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

export function isRetryable(status: number, method: string): boolean {
  if (status === 429) return true;
  return status === 503 && IDEMPOTENT.has(method);
}

/**
 * Milliseconds the answer asks to wait: Retry-After in seconds or as an HTTP date; without one, a
 * backoff of 0.5 s doubling with each try.
 */
export function retryDelay(retryAfter: string | null, attempt: number, now: () => number): number {
  if (retryAfter !== null && retryAfter.trim() !== "") {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - now());
  }
  return 500 * 2 ** (attempt - 1);
}

export const defaultSleep = (ms: number): Promise<void> =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));
