import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import { pinoHttp } from "pino-http";
import { type EnvelopeOption, resolveEnvelope, sendError } from "./envelope.ts";
import { methodNotAllowedError, notFound, toApiError, unsupportedMediaType } from "./errors.ts";
import type { Logger } from "./logger.ts";

export const REQUEST_ID_HEADER = "x-request-id";
const JSON_TYPES = ["application/json", "application/*+json"];
// Incoming ids are echoed into headers and logs, so accept only short, plain tokens.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const QUIET_PATHS = new Set(["/health", "/ready"]);

export interface ErrorHandlerOptions {
  logger: Logger;
  envelope: EnvelopeOption;
}

export interface CreateAppOptions extends ErrorHandlerOptions {
  /** Default "1mb". */
  bodyLimit?: string | number;
  /**
   * Parse JSON bodies and answer 415 to any other body (default true). The gateway turns it
   * off because it streams bodies through unparsed.
   */
  json?: boolean;
  /** Register routes here and the final 404/error handlers are installed after them. */
  routes?: (app: Express) => void;
}

/** Keeps a well-formed incoming `x-request-id` (so a trace spans services), else makes one. */
export function requestIdFor(req: IncomingMessage, res: ServerResponse): string {
  const existing = (req as IncomingMessage & { id?: unknown }).id;
  if (typeof existing === "string") return existing;
  const incoming = req.headers[REQUEST_ID_HEADER];
  const id = typeof incoming === "string" && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  (req as IncomingMessage & { id?: unknown }).id = id;
  if (!res.headersSent) res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  return queryAt === -1 ? url : url.slice(0, queryAt);
}

function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"] ?? 0);
  return Number.isFinite(length) && length > 0;
}

export function accessLog(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: requestIdFor,
    quietReqLogger: true,
    // Probes hit these every few seconds; at info they would drown the real traffic.
    customLogLevel: (req) => (QUIET_PATHS.has(pathOf(req)) ? "debug" : "info"),
    serializers: {
      // The standard serializer adds the client address; we never log it, nor the user agent.
      req: (req: { id: unknown; method: string; url: string; headers: Record<string, unknown> }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        headers: {
          "content-type": req.headers["content-type"],
          "content-length": req.headers["content-length"],
        },
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as unknown as RequestHandler;
}

export function requireJsonBody(): RequestHandler {
  return (req, _res, next) => {
    if (!hasBody(req) || req.is(JSON_TYPES)) return next();
    next(unsupportedMediaType());
  };
}

export function createApp(options: CreateAppOptions): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use((req, res, next) => {
    requestIdFor(req, res);
    next();
  });
  app.use(accessLog(options.logger));
  if (options.json !== false) {
    app.use(requireJsonBody());
    app.use(express.json({ limit: options.bodyLimit ?? "1mb", type: JSON_TYPES, strict: true }));
  }
  if (options.routes) {
    options.routes(app);
    installErrorHandlers(app, options);
  }
  return app;
}

/** The 404 and error handlers; install them after the last route. */
export function installErrorHandlers(app: Express, options: ErrorHandlerOptions): void {
  app.use((_req, _res, next) => next(notFound("Route not found")));
  app.use(errorHandler(options));
}

export function errorHandler({ logger, envelope }: ErrorHandlerOptions): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      // Too late for an envelope; express's default handler aborts the connection.
      next(err);
      return;
    }
    const apiError = toApiError(err);
    if (apiError.status >= 500) {
      const log = (req as { log?: Logger }).log ?? logger;
      log.error({ err, reqId: (req as { id?: unknown }).id }, "request failed");
    }
    sendError(res, apiError, resolveEnvelope(envelope, req));
  };
}

/** Answers 405 with an `Allow` header: `router.route("/x").get(h).all(methodNotAllowed(["GET"]))`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const withHead = allowed.some((m) => m.toUpperCase() === "GET") ? [...allowed, "HEAD"] : allowed;
  const unique = [...new Set(withHead.map((m) => m.toUpperCase()))];
  return (_req, _res, next) => next(methodNotAllowedError(unique));
}
