// The one timeout helper of the project: every "give up on this after N ms" goes through it.
// It lives in @kurz/bus because the bus needs it and service-kit depends on the bus (not the other way
// round); service-kit re-exports it for the services. fetch() calls use AbortSignal.timeout instead,
// which also cancels the request.

/** What withTimeout rejects with; `message` is "<what> timed out after <ms> ms". */
export class TimeoutError extends Error {
  override name = "TimeoutError";
  /** The code Node's own timeouts carry (dns ETIMEOUT), for callers that sort errors by code. */
  readonly code = "ETIMEOUT";
}

/**
 * Settles like `work`, or rejects with a TimeoutError when it has not settled within `ms`. The work is
 * not cancelled unless `onTimeout` does it (e.g. a resolver's cancel()). A function is called inside the
 * guard, so its synchronous throw becomes the rejection.
 */
export async function withTimeout<T>(
  work: Promise<T> | (() => Promise<T> | T),
  ms: number,
  what: string,
  onTimeout?: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new TimeoutError(`${what ? `${what} ` : ""}timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([typeof work === "function" ? (async () => work())() : work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
