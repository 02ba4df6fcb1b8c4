import { type DestinationStream, type LevelWithSilent, type Logger, pino } from "pino";

export type { Logger } from "pino";

// Credentials, personal data, client addresses and user agents must never reach log storage.
export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-kurz-internal-token"]',
  'req.headers["x-kurz-forward-token"]',
  'req.headers["user-agent"]',
  'req.headers["x-forwarded-for"]',
  'req.headers["x-real-ip"]',
  'req.headers["forwarded"]',
  'res.headers["set-cookie"]',
  "headers.authorization",
  "headers.cookie",
  'headers["x-forwarded-for"]',
  "req.remoteAddress",
  "req.remotePort",
  "password",
  "*.password",
  "*.*.password",
  "api_key",
  "*.api_key",
  "*.*.api_key",
  "ip",
  "*.ip",
  "*.*.ip",
] as const;

export function createLogger(
  service: string,
  level: LevelWithSilent = "info",
  destination?: DestinationStream,
): Logger {
  const options = {
    level,
    base: { service },
    // ISO time is what log shippers parse without configuration.
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: [...REDACT_PATHS], censor: "[redacted]" },
    serializers: { err: pino.stdSerializers.err },
  };
  return destination ? pino(options, destination) : pino(options);
}

interface EndableStream {
  end(): void;
  once(event: "close", listener: () => void): unknown;
  destroyed?: boolean;
}

/**
 * Calls `done` once every line logged so far is written, before the process exits. pino's default
 * stdout stream writes asynchronously and its flush(cb) answers at once while a write is still in
 * flight (sonic-boom with minLength 0), so exiting on that answer lost the last lines under load;
 * ending the stream waits for the pending write ("close" follows it; stdout itself stays open).
 */
export function flushLoggerBeforeExit(logger: Logger, done: () => void): void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    | Partial<EndableStream>
    | undefined;
  if (typeof stream?.end === "function" && typeof stream.once === "function" && !stream.destroyed) {
    stream.once("close", done);
    stream.end();
    return;
  }
  logger.flush(() => done());
}

/**
 * True once the logger's stream is ended and written out. A listener of the stream's "finish" or
 * "close" that throws stops the events' other listeners, the exit's among them; the exit then asks
 * this rather than waiting for its fallback.
 */
export function loggerStreamDone(logger: Logger): boolean {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    | Partial<EndableStream>
    | undefined;
  return stream?.destroyed === true;
}
