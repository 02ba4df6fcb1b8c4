import type { IncomingMessage } from "node:http";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import { trackRequest } from "./access-log.ts";
import { type EnvelopeOption, resolveEnvelope, sendError } from "./envelope.ts";
import {
  logRequestFailure,
  methodNotAllowedError,
  notFound,
  toApiError,
  unsupportedMediaType,
} from "./errors.ts";
import type { Logger } from "./logger.ts";
import { NOSNIFF, NOSNIFF_HEADER } from "./security-headers.ts";

const JSON_TYPES = ["application/json", "application/*+json"];

export interface ErrorHandlerOptions {
  logger: Logger;
  envelope: EnvelopeOption;
  /** Errors meaning a dependency is down (answered 503 with Retry-After): see toApiError. */
  isUnavailable?: (err: unknown) => boolean;
}

export interface CreateAppOptions extends ErrorHandlerOptions {
  /** Default "1mb". */
  bodyLimit?: string | number;
  /**
   * Parse JSON bodies and answer 415 to any other body (default true). The gateway turns it
   * off because it streams bodies through unparsed.
   */
  json?: boolean;
  /**
   * Routes whose body is a file, read as raw bytes (a Buffer in `req.body`) whatever its media type,
   * up to `limit` bytes (413 beyond): an import upload is CSV or JSON of several megabytes.
   */
  rawBodies?: readonly { method: string; path: string; limit: number }[];
  /** Register routes here and the final 404/error handlers are installed after them. */
  routes?: (app: Express) => void;
}

function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"] ?? 0);
  return Number.isFinite(length) && length > 0;
}

/** Request id and access log (access-log.ts) as Express middleware. */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    trackRequest(logger, req, res);
    next();
  };
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
  app.use(accessLog(options.logger));
  // Every answer, JSON or file, is read as the type it declares (security-headers.ts).
  app.use((_req, res, next) => {
    res.setHeader(NOSNIFF_HEADER, NOSNIFF);
    next();
  });
  if (options.json !== false) {
    const rawBodies = options.rawBodies ?? [];
    const raw = rawBodies.map((r) => ({ ...r, parse: express.raw({ type: () => true, limit: r.limit }) }));
    const jsonOnly = requireJsonBody();
    const json = express.json({ limit: options.bodyLimit ?? "1mb", type: JSON_TYPES, strict: true });
    app.use((req, res, next) => {
      const file = raw.find((r) => r.method === req.method && r.path === req.path.replace(/\/+$/, ""));
      if (file) return file.parse(req, res, next);
      jsonOnly(req, res, (err?: unknown) => (err ? next(err) : json(req, res, next)));
    });
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

export function errorHandler({ logger, envelope, isUnavailable }: ErrorHandlerOptions): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      // Too late for an envelope; express's default handler aborts the connection.
      next(err);
      return;
    }
    const apiError = toApiError(err, isUnavailable);
    logRequestFailure(logger, err, apiError, (req as { id?: unknown }).id);
    sendError(res, apiError, resolveEnvelope(envelope, req));
  };
}

/** Answers 405 with an `Allow` header: `router.route("/x").get(h).all(methodNotAllowed(["GET"]))`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const withHead = allowed.some((m) => m.toUpperCase() === "GET") ? [...allowed, "HEAD"] : allowed;
  const unique = [...new Set(withHead.map((m) => m.toUpperCase()))];
  return (_req, _res, next) => next(methodNotAllowedError(unique));
}
