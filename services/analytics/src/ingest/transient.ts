// Tells a ClickHouse outage (retry until it is back) from a bad batch (let the bus isolate and
// dead-letter it). Retrying a bad batch forever would stall every click behind it; dead-lettering
// on an outage would empty the stream into the dead-letter topic.
import { setTimeout as sleep } from "node:timers/promises";

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
]);

// ClickHouse error codes that describe the server's state, not the data sent to it.
const SERVER_STATE_CODES = new Set([
  3, // UNEXPECTED_END_OF_FILE
  24, // CANNOT_WRITE_TO_OSTREAM
  159, // TIMEOUT_EXCEEDED
  164, // READONLY
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  236, // ABORTED
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  279, // ALL_CONNECTION_TRIES_FAILED
  319, // UNKNOWN_STATUS_OF_INSERT
  394, // QUERY_WAS_CANCELLED
  425, // SYSTEM_ERROR
  999, // KEEPER_EXCEPTION
]);

export function isTransient(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    const numeric = typeof code === "string" && /^\d+$/.test(code) ? Number(code) : code;
    if (typeof numeric === "number" && SERVER_STATE_CODES.has(numeric)) return true;
    if (
      typeof message === "string" &&
      /socket hang up|timeout error|other side closed|fetch failed/i.test(message)
    )
      return true;
  }
  return false;
}

export interface RetryOptions {
  signal: AbortSignal;
  logger: { warn(o: object, m?: string): void; info(o: object, m?: string): void };
  what: string;
  initialMs?: number;
  maxMs?: number;
}

/**
 * Runs `fn` until it succeeds. Transient failures wait with exponential backoff (±20 % jitter) and
 * try again; other failures, and an abort (the service is stopping), are thrown to the caller.
 */
export async function retryWhileTransient<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  const initial = opts.initialMs ?? 200;
  const max = opts.maxMs ?? 10_000;
  let delay = initial;
  let failures = 0;
  let lastLog = 0;
  for (;;) {
    try {
      const result = await fn();
      if (failures > 0) opts.logger.info({ what: opts.what, failures }, "ClickHouse is back; resuming");
      return result;
    } catch (err) {
      if (!isTransient(err) || opts.signal.aborted) throw err;
      failures++;
      // One line when the outage starts, then one every 30 s: enough to see it, not a flood.
      if (Date.now() - lastLog > 30_000) {
        lastLog = Date.now();
        opts.logger.warn(
          { what: opts.what, failures, err: (err as Error).message },
          "ClickHouse unavailable; pausing and retrying",
        );
      }
      const jittered = delay * (0.8 + Math.random() * 0.4);
      try {
        await sleep(jittered, undefined, { signal: opts.signal });
      } catch {
        throw err;
      }
      delay = Math.min(max, delay * 2);
    }
  }
}
