// Routing: /api/v1/* and /api/* are authenticated and rate limited, then forwarded to the owning
// service; in single-machine mode every other path goes to the redirect service.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildOpenApiDocument, RATE_LIMIT_HEADERS } from "@kurz/contracts";
import {
  apiError,
  createApp,
  envelopeForPath,
  healthRoutes,
  installErrorHandlers,
  type Logger,
  methodNotAllowed,
  methodNotAllowedError,
  payloadTooLarge,
  sendError,
  serviceUnavailable,
} from "@kurz/service-kit";
import type { Express, NextFunction, Request, Response } from "express";
import type { ApiKeys } from "./api-keys.ts";
import type { GatewayConfig } from "./config.ts";
import { docsRouter } from "./docs-page.ts";
import type { KeyUsageRecorder } from "./key-usage.ts";
import { createForwarder } from "./proxy.ts";
import { type RateLimiter, reportedWindow, type Window } from "./rate-limit.ts";
import { RouteTable } from "./route-table.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  keys: ApiKeys;
  limiter: RateLimiter;
  keyUsage: KeyUsageRecorder;
  readiness: Record<string, () => Promise<unknown>>;
}

/** Same as a key's default budget (SPEC 8); public analytics are read-only and cheap. */
const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;

const pathOf = (url: string) => url.split("?", 1)[0]!;

export function createGatewayApp(deps: GatewayDeps): Express {
  const { config, logger } = deps;
  // Bodies stream through to the upstream untouched; the owning service parses and validates them
  // (malformed JSON, 415 and chunked bodies over the limit are answered there, in the same envelopes).
  const app = createApp({ logger, envelope: "auto", json: false });
  // req.ip (per-client limits on public endpoints) must be the visitor, not the proxy in front.
  app.set("trust proxy", config.TRUST_PROXY > 0 ? config.TRUST_PROXY : false);
  const routes = new RouteTable();

  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse) => {
    logger.error({ err: err.message, path: pathOf(req.url ?? "") }, "upstream unavailable");
    if (res.headersSent) return res.destroy();
    res.setHeader("Retry-After", "1");
    sendError(
      res,
      serviceUnavailable("Service temporarily unavailable"),
      envelopeForPath(pathOf(req.url ?? "/")),
    );
  };
  const forward = createForwarder({ internalToken: config.INTERNAL_TOKEN, onError: unavailable });

  app.use(healthRoutes(deps.readiness));
  const openapi = buildOpenApiDocument({ baseUrl: config.PUBLIC_BASE_URL });
  app
    .route("/api/v1/openapi.json")
    .get((_req, res) => {
      res.json(openapi);
    })
    .all(methodNotAllowed(["GET"]));
  app.use(docsRouter());

  /** Counts the request in every window, sets the X-RateLimit-* headers, and throws 429 when one is spent. */
  const enforceLimits = async (res: Response, subject: string, windows: Window[]): Promise<void> => {
    const states = await deps.limiter.hit(subject, windows).catch((err: unknown) => {
      logger.error({ err: String(err) }, "rate limiter unavailable");
      throw serviceUnavailable("Service temporarily unavailable");
    });
    const { state, exceeded } = reportedWindow(states);
    res.setHeader(RATE_LIMIT_HEADERS.limit, String(state.limit));
    res.setHeader(RATE_LIMIT_HEADERS.remaining, String(state.remaining));
    res.setHeader(RATE_LIMIT_HEADERS.reset, String(state.resetAt));
    if (!exceeded) return;
    const retryAfter = Math.max(1, state.resetAt - Math.floor(Date.now() / 1000));
    throw apiError(
      "RATE_LIMIT_EXCEEDED",
      `Rate limit exceeded: ${state.limit} requests per ${state.name === "1h" ? "hour" : "minute"}`,
      { limit: state.limit, window: state.name, retry_after: retryAfter },
      { headers: { [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter) } },
    );
  };

  // Unauthenticated public API routes (e.g. /api/v1/public/*) are mounted here, before authentication.
  // Public analytics (issue 5): no key, so the budget is per client address (hashed: no raw IPs kept).
  app.use("/api/v1/public/analytics", async (req, res, next) => {
    try {
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
      const client = createHash("sha256")
        .update(req.ip ?? req.socket.remoteAddress ?? "")
        .digest("hex");
      await enforceLimits(res, `public:${client.slice(0, 32)}`, [
        { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
      ]);
      req.url = req.originalUrl;
      forward(req, res, config.ANALYTICS_URL);
    } catch (err) {
      next(err);
    }
  });

  // A request without a valid key has no key whose budget could be counted or reported, so 401s (and
  // 503s while keys cannot be checked) carry no X-RateLimit-* headers; every later answer does.
  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const key = await deps.keys.authenticate(req.headers.authorization);
      deps.keyUsage.record(key.key_id);
      const legacy = envelopeForPath(req.baseUrl + req.path) === "legacy";
      const windows: Window[] = legacy
        ? [{ name: "1m", seconds: 60, limit: config.LEGACY_RATE_LIMIT_PER_MINUTE }]
        : [
            { name: "1m", seconds: 60, limit: key.rate_limit_per_minute },
            { name: "1h", seconds: 3600, limit: key.rate_limit_per_hour },
          ];
      await enforceLimits(res, `${legacy ? "legacy" : "v1"}:${key.key_id}`, windows);
      res.locals.identity = { accountId: key.account_id, keyId: key.key_id };
      next();
    } catch (err) {
      next(err);
    }
  };

  // Answered here so every upstream gets the same 405 and oversized bodies never travel further.
  const screen = (req: Request, _res: Response, next: NextFunction) => {
    const allowed = routes.allowedMethods(req.baseUrl + req.path);
    if (allowed && !allowed.includes(req.method)) return next(methodNotAllowedError(allowed));
    const length = Number(req.headers["content-length"] ?? 0);
    if (length > config.MAX_BODY_BYTES) {
      return next(payloadTooLarge(`Request body is larger than ${config.MAX_BODY_BYTES} bytes`));
    }
    next();
  };

  // app.use strips the mount path from req.url; upstreams need the original one.
  app.use("/api/v1/analytics", authenticate, screen, (req, res) => {
    req.url = req.originalUrl;
    forward(req, res, config.ANALYTICS_URL, res.locals.identity);
  });
  app.use("/api", authenticate, screen, (req, res) => {
    req.url = req.originalUrl;
    forward(req, res, config.MANAGEMENT_URL, res.locals.identity);
  });
  // Public campaign list pages (legacy API `list` URLs) are served by management, without a key.
  app.use("/c", (req, res) => {
    req.url = req.originalUrl;
    forward(req, res, config.MANAGEMENT_URL);
  });
  if (config.REDIRECT_URL) {
    app.use((req, res) => forward(req, res, config.REDIRECT_URL));
  }
  installErrorHandlers(app, { logger, envelope: "auto" });
  return app;
}
