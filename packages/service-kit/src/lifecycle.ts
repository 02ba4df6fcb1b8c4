import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { withTimeout } from "@kurz/bus";
import { adviseCodeRandomAccess, dropUnmappedPages, pageOutCode } from "./code-read-advice.ts";
import { ConfigError } from "./config.ts";
import { flushLoggerBeforeExit, type Logger, loggerStreamDone } from "./logger.ts";
import { startTelemetry, type Telemetry } from "./telemetry.ts";

export interface StartedService {
  servers: Server[];
  /** Flush producers, close pools. Runs after the servers have drained. */
  close: () => Promise<void>;
}

export interface RunServiceOptions {
  name: string;
  logger: Logger;
  start: () => Promise<StartedService>;
  /** How long in-flight requests may take to finish after a stop signal. Default 10 000 ms. */
  graceMs?: number;
  /** Bound on `close()`; after it the process exits 1. Default 10 000 ms. */
  closeTimeoutMs?: number;
  /** Default: `startTelemetry(name)`, started before `start()`. Pass one to share or disable it. */
  telemetry?: Telemetry;
  /**
   * Code files (by file name) whose pages this process reclaims once started, for a large library
   * most of whose code ran only to start (code-read-advice.ts, `pageOutCode`); only under a memory
   * budget (`KURZ_LEAN_CODE_PAGES=1`).
   */
  pageOutAfterStart?: string[];
}

export interface RunningService {
  /** Same path as a signal (drain, close, exit with `exitCode`, default 0), e.g. on a fatal consumer crash. */
  shutdown(reason: string, exitCode?: number): void;
}

/**
 * How long a service keeps an idle keep-alive connection: longer than the forwarders' agents keep
 * theirs (IDLE_UPSTREAM_SOCKET_MS), so the server never closes a socket an agent is about to reuse,
 * which would answer the client 503 (an ECONNRESET seen under load with Node's 5 s default).
 */
export const SERVER_KEEP_ALIVE_MS = 65_000;

export function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  if (server.keepAliveTimeout < SERVER_KEEP_ALIVE_MS) {
    server.keepAliveTimeout = SERVER_KEEP_ALIVE_MS;
    server.headersTimeout = Math.max(server.headersTimeout, SERVER_KEEP_ALIVE_MS + 1_000);
  }
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off("listening", onListening);
      reject(err);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

function urlOf(server: Server): string | null {
  const address = server.address();
  if (address === null || typeof address === "string") return address;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

const DRAIN_POLL_MS = 100;

/**
 * Stops accepting, lets in-flight requests finish, and force-closes what is left at the
 * deadline. Keep-alive connections that go idle during the wait are closed as they do, so
 * a client holding one open cannot delay the exit.
 */
export async function drainServers(servers: Server[], graceMs: number, logger: Logger): Promise<void> {
  const closed = servers.map(
    (server) =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  );
  let timedOut = false;
  const poll = setInterval(() => {
    for (const server of servers) server.closeIdleConnections();
  }, DRAIN_POLL_MS);
  let deadline: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all(closed),
      new Promise<void>((resolve) => {
        deadline = setTimeout(() => {
          timedOut = true;
          resolve();
        }, graceMs);
      }),
    ]);
    if (timedOut) {
      logger.warn({ graceMs }, "grace period over; closing remaining connections");
      for (const server of servers) server.closeAllConnections();
      await Promise.all(closed);
    }
  } finally {
    clearInterval(poll);
    clearTimeout(deadline);
  }
}

/**
 * Writes an error raised once the logger's stream has ended to stderr, and says whether it is a
 * failure. pino throws "SonicBoom destroyed" from a log call made after its stream ended (a late
 * socket or timer callback): a lost line, not a failed service, so the exit code stays what the stop
 * made it; its stack, written here, names the caller.
 */
function writeAfterLoggerEnded(name: string, what: string, err: unknown): boolean {
  const lateLine = err instanceof Error && err.message === "SonicBoom destroyed";
  const detail = err instanceof Error ? (lateLine ? (err.stack ?? err.message) : err.message) : String(err);
  process.stderr.write(
    `${name}: ${lateLine ? "a log line written after the logger ended was dropped" : what} while exiting: ${detail}\n`,
  );
  return !lateLine;
}

/**
 * The one way a service process runs: start, log where it listens, and on SIGTERM/SIGINT,
 * an uncaught exception or an unhandled rejection shut down gracefully (drain, close,
 * flush telemetry) and exit (0 on a signal, 1 on a crash). The same signal again exits at once.
 */
export async function runService(options: RunServiceOptions): Promise<RunningService> {
  const { name, logger } = options;
  const graceMs = options.graceMs ?? 10_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const telemetry = options.telemetry ?? startTelemetry(name, { logger });

  let started: StartedService | undefined;
  let shuttingDown: Promise<void> | undefined;
  let exitCode = 0;

  // Exit only once the last lines are out (bounded, in case stdout is a pipe nobody reads).
  // Set once the logger's stream is ending: pino throws on a write after that, so a late error (a
  // timer or socket callback between the end and the exit) is written to stderr instead, or its own
  // handler's log would throw and hide it behind "SonicBoom destroyed". It exits if the lines are out.
  let exitIfWritten: (() => void) | undefined;
  const loggerEnded = () => exitIfWritten !== undefined;
  const finish = (code: number) => {
    const exit = () => process.exit(Math.max(code, exitCode));
    exitIfWritten = () => {
      if (loggerStreamDone(logger)) exit();
    };
    const fallback = setTimeout(exit, 5000);
    try {
      flushLoggerBeforeExit(logger, () => {
        clearTimeout(fallback);
        exit();
      });
    } catch {
      exit();
    }
  };

  const shutdown = (reason: string, code = 0): Promise<void> => {
    exitCode = Math.max(exitCode, code);
    if (shuttingDown) return shuttingDown;
    logger.info({ reason }, "shutting down");
    shuttingDown = (async () => {
      if (started) {
        await drainServers(started.servers, graceMs, logger);
        try {
          await withTimeout(started.close(), closeTimeoutMs, "close()");
        } catch (err) {
          logger.error({ err }, "closing resources failed");
          exitCode = Math.max(exitCode, 1);
        }
      }
      await telemetry.shutdown();
      logger.info({ exitCode }, "stopped");
    })();
    return shuttingDown;
  };

  const stopAndExit = (reason: string, code = 0) => {
    shutdown(reason, code).then(
      () => finish(exitCode),
      (err: unknown) => {
        logger.fatal({ err }, "shutdown failed");
        finish(1);
      },
    );
  };

  // The signal that asked for the stop. Ctrl-C in a terminal signals the whole process group, and
  // `./kurz up` then stops each service with SIGTERM too: a different signal during the stop is that
  // same request, and the drain goes on; the same signal again is somebody insisting.
  let stopSignal: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!shuttingDown) {
      stopSignal = signal;
      stopAndExit(signal, 0);
      return;
    }
    if (stopSignal === undefined) {
      stopSignal = signal; // a stop a crash began: this signal asks for it too
      return;
    }
    // Once the logger has ended the exit is on its way, and a log line would only throw.
    if (signal !== stopSignal || loggerEnded()) return;
    logger.warn({ signal }, "second stop signal; exiting now");
    finish(1);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const onFatal = (what: string, err: unknown) => {
    if (loggerEnded()) {
      if (writeAfterLoggerEnded(name, what, err)) exitCode = 1;
      // The exit is already on its way; if this error came from a listener of the stream's end, the
      // exit's own listener may never run, so exit now when the lines are out (not after the fallback).
      exitIfWritten?.();
      return;
    }
    logger.fatal({ err }, what);
    stopAndExit(what === "uncaught exception" ? "uncaughtException" : "unhandledRejection", 1);
  };
  process.on("uncaughtException", (err) => onFatal("uncaught exception", err));
  process.on("unhandledRejection", (reason) => onFatal("unhandled rejection", reason));

  // Under a memory budget (KURZ_LEAN_CODE_PAGES, set with it), code is read in small pieces from
  // before start() runs through it, and what start-up alone needed leaves memory once it is serving
  // (code-read-advice.ts says why). Without one, as for a test's own services, the pages stay cached
  // for the next process to start.
  const lean = process.env.KURZ_LEAN_CODE_PAGES === "1";
  const advice = lean ? await adviseCodeRandomAccess() : undefined;
  if (advice?.skipped) logger.warn({ reason: advice.skipped }, "code pages keep the disk's read-ahead");
  try {
    started = await options.start();
  } catch (err) {
    if (err instanceof ConfigError) logger.fatal(err.message);
    else logger.fatal({ err }, "failed to start");
    stopAndExit("start failed", 1);
    return { shutdown: stopAndExit };
  }
  const urls = started.servers.map(urlOf).filter((u): u is string => u !== null);
  logger.info({ urls }, `${name} listening on ${urls.join(", ")}`);
  if (advice) {
    await pageOutCode(options.pageOutAfterStart ?? []);
    await dropUnmappedPages(advice.files);
  }
  return { shutdown: stopAndExit };
}
