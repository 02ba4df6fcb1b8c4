// The rate-limit budgets as the client sees them: every counted request reports its window in the
// X-RateLimit-* headers, and a spent one answers 429 in SnipURL's words.
import type { ServerResponse } from "node:http";
import { RATE_LIMIT_HEADERS } from "@kurz/contracts";
import { apiError, type Logger, serviceUnavailable } from "@kurz/service-kit";
import { type RateLimiter, reportedWindow, type Window, type WindowState } from "./rate-limit.ts";

/** Same as a key's default budget; public analytics are read-only and cheap. */
export const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;
/**
 * Uploaded images per client address and minute: a dashboard page shows several, and a chat service's
 * preview fetcher reads many workspaces' images from a few addresses (and caches them: immutable).
 */
export const IMAGE_RATE_LIMIT_PER_MINUTE = 600;

export interface Budgets {
  /** The answer while the limiter's Redis is down: 503 (logged). */
  limiterDown(err: unknown): never;
  /** Sets the X-RateLimit-* headers of `state`. */
  reportWindow(res: ServerResponse, state: WindowState): void;
  /** The 429 of a spent window; `legacyMessage` replaces the wording on the older API. */
  exceededError(state: WindowState, legacyMessage?: string): Error;
  /** Counts the request in every window, sets the X-RateLimit-* headers, and throws 429 when one is spent. */
  enforceLimits(res: ServerResponse, subject: string, windows: Window[]): Promise<void>;
}

/**
 * `refusals` counts the 429s built, by the spent window's name ("1m", "1h"), for the
 * `gateway_rate_limit_refusals_total` metric.
 */
export function createBudgets(
  limiter: RateLimiter,
  logger: Logger,
  refusals: Map<string, number> = new Map(),
): Budgets {
  const limiterDown = (err: unknown): never => {
    logger.error({ err: String(err) }, "rate limiter unavailable");
    throw serviceUnavailable("Service temporarily unavailable");
  };
  const reportWindow = (res: ServerResponse, state: WindowState) => {
    res.setHeader(RATE_LIMIT_HEADERS.limit, String(state.limit));
    res.setHeader(RATE_LIMIT_HEADERS.remaining, String(state.remaining));
    res.setHeader(RATE_LIMIT_HEADERS.reset, String(state.resetAt));
  };
  // SnipURL's documented wording (its clients show `error.message`); which budget it was is in
  // `details` (window, limit) and the X-RateLimit-* headers. The older API has no `details`, so its
  // message may name the budget instead.
  const exceededError = (state: WindowState, legacyMessage?: string) => {
    refusals.set(state.name, (refusals.get(state.name) ?? 0) + 1);
    const retryAfter = Math.max(1, state.resetAt - Math.floor(Date.now() / 1000));
    return apiError(
      "RATE_LIMIT_EXCEEDED",
      legacyMessage ?? `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
      { limit: state.limit, window: state.name, retry_after: retryAfter },
      { headers: { [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter) } },
    );
  };

  /** Counts the request in every window, sets the X-RateLimit-* headers, and throws 429 when one is spent. */
  const enforceLimits = async (res: ServerResponse, subject: string, windows: Window[]): Promise<void> => {
    const states = await limiter.hit(subject, windows).catch(limiterDown);
    const { state, exceeded } = reportedWindow(states);
    reportWindow(res, state);
    if (exceeded) throw exceededError(state);
  };
  return { limiterDown, reportWindow, exceededError, enforceLimits };
}
