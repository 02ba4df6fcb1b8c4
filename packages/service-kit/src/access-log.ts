// One access-log line per finished request, framework-free, for Express apps and bare node:http
// handlers alike. pino-http made a child logger and serialized the request for every request, even
// with the level off; here nothing is built unless the line will be written (decision 0044), and a
// request's logger is made only when something logs through it (an error, mostly).
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "./logger.ts";

export const REQUEST_ID_HEADER = "x-request-id";
// Incoming ids are echoed into headers and logs, so accept only short, plain tokens.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Probes hit these every few seconds; at info they would drown the real traffic.
const QUIET_PATHS = new Set(["/health", "/ready"]);

const LOGGER = Symbol("kurz.accessLogger");
type Tracked = IncomingMessage & { id?: unknown; [LOGGER]?: Logger };

/** Keeps a well-formed incoming `x-request-id` (so a trace spans services), else makes one. */
export function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const tracked = req as Tracked;
  if (typeof tracked.id === "string") return tracked.id;
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  tracked.id = id;
  if (!res.headersSent) res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

function pathOf(url: string): string {
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

/**
 * Gives the request its id and, when the level is on, logs it once it is answered: method, URL,
 * content type and length, status and time. Never the client's address, user agent or credentials.
 */
export function trackRequest(logger: Logger, req: IncomingMessage, res: ServerResponse): void {
  const id = requestIdFor(req, res);
  (req as Tracked)[LOGGER] = logger;
  const url = req.url ?? "/";
  const level = QUIET_PATHS.has(pathOf(url)) ? "debug" : "info";
  if (!logger.isLevelEnabled(level)) return;
  const started = performance.now();
  res.once("close", () => {
    const line = {
      req: {
        id,
        method: req.method,
        url,
        headers: {
          "content-type": req.headers["content-type"],
          "content-length": req.headers["content-length"],
        },
      },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - started),
    };
    logger[level](line, res.writableFinished ? "request completed" : "request aborted");
  });
}

/** The request's logger (bound to its id), made on first use; the fallback for untracked requests. */
export function requestLog(req: IncomingMessage, fallback?: Logger): Logger | undefined {
  const tracked = req as Tracked;
  const base = tracked[LOGGER] ?? fallback;
  if (!base) return undefined;
  return typeof tracked.id === "string" ? base.child({ reqId: tracked.id }) : base;
}
