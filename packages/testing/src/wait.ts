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
