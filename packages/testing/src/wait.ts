import { setTimeout as sleep } from "node:timers/promises";

export interface WaitForOptions {
  /** Default 5000. */
  timeoutMs?: number;
  /** Default 50. */
  intervalMs?: number;
  /** Names what was awaited in the timeout error. */
  description?: string;
}

/**
 * Polls `fn` until it returns a truthy value, which is returned. Throws from `fn` count as
 * "not yet"; at the deadline the error carries the last one (or says the value stayed falsy).
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 50;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let attempts = 0;
  for (;;) {
    attempts += 1;
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() + intervalMs > deadline) break;
    await sleep(intervalMs);
  }
  const what = options.description ? ` for ${options.description}` : "";
  const why =
    lastError === undefined
      ? "the condition stayed falsy"
      : `last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
  throw new Error(`waitFor${what} timed out after ${timeoutMs} ms (${attempts} attempts); ${why}`, {
    cause: lastError,
  });
}

/**
 * Rate budgets count in clock minutes (fixed windows aligned to the clock): start a budget-sensitive
 * sequence with at least `seconds` left in the current minute, so a window reset cannot change what
 * it observes.
 */
export async function withMinuteLeft(seconds: number): Promise<void> {
  const into = (Date.now() % 60_000) / 1000;
  if (60 - into < seconds) await new Promise((r) => setTimeout(r, (60 - into) * 1000 + 250));
}

const DAY_MS = 86_400_000;

/**
 * The UTC day (YYYY-MM-DD) in which the `ms` milliseconds from `now` fall wholly, and how long to wait
 * for it to begin: none when the current day has `ms` left, else until the next one begins.
 */
export function utcDayLeft(ms: number, now: number): { day: string; waitMs: number } {
  const left = DAY_MS - (now % DAY_MS);
  const waitMs = left < ms ? left + 250 : 0;
  return { day: new Date(now + waitMs).toISOString().slice(0, 10), waitMs };
}

/**
 * A click carries the clock of the redirect that answered it, and analytics counts it in that UTC day
 * (series, visitors salted per day). A test whose clicks must share one day, the day it then expects
 * in its answers, starts them here: with at least `ms` left of the day (wait for the next one when
 * fewer remain). Returns that day and the moment it returned, to derive the periods asked for.
 */
export async function withUtcDayLeft(ms: number): Promise<{ day: string; at: number }> {
  const { day, waitMs } = utcDayLeft(ms, Date.now());
  if (waitMs > 0) await sleep(waitMs);
  return { day, at: Date.now() };
}
