// Routing: /api/v1/* and /api/* are authenticated and rate limited, then forwarded to the owning
// service; in single-machine mode every other path goes to the redirect service. The path is made
// canonical once, before anything routes on it, and exactly that path is forwarded (docs/security.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  API_VERSION,
  API_VERSION_HEADER,
  buildOpenApiDocument,
  isV1ApiPath,
  RATE_LIMIT_HEADERS,
} from "@kurz/contracts";
import {
  AUTH_FAILURE_WINDOW,
  apiError,
  authFailureSubject,
  canonicalPath,
  clientBudgetHash,
  createApp,
  envelopeForPath,
  healthRoutes,
  installErrorHandlers,
  isApiError,
  type Logger,
  methodNotAllowed,
  methodNotAllowedError,
  payloadTooLarge,
  sendError,
  sendPathRefusal,
  serviceUnavailable,
} from "@kurz/service-kit";
import type { Express, NextFunction, Request, Response } from "express";
import type { ApiKeys } from "./api-keys.ts";
import type { GatewayConfig } from "./config.ts";
import { docsRouter } from "./docs-page.ts";
import type { KeyUsageRecorder } from "./key-usage.ts";
import { createForwarder } from "./proxy.ts";
import { type RateLimiter, reportedWindow, type Window, type WindowState } from "./rate-limit.ts";
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

/** The client's address, keyed-hashed (service-kit's client-budget.ts: no raw IP is kept in Redis). */
const clientHasher = (secret: string) => (req: Request) =>
  clientBudgetHash(secret, req.ip ?? req.socket.remoteAddress ?? "");

/** The path this request was routed on and is forwarded at, set once by the canonical-path guard. */
const routedUrl = (res: Response): string => res.locals.canonicalUrl as string;

export function createGatewayApp(deps: GatewayDeps): Express {
  const { config, logger } = deps;
  // Bodies stream through to the upstream untouched; the owning service parses and validates them
  // (malformed JSON, 415 and chunked bodies over the limit are answered there, in the same envelopes).
  const app = createApp({ logger, envelope: "auto", json: false });
  // req.ip (per-client limits on public endpoints) must be the visitor, not the proxy in front.
  app.set("trust proxy", config.TRUST_PROXY > 0 ? config.TRUST_PROXY : false);
  const routes = new RouteTable();
  const clientHash = clientHasher(config.INTERNAL_TOKEN);

  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse) => {
    // Express strips mount paths from req.url; originalUrl is the routed one.
    const url = (req as Partial<Request>).originalUrl ?? req.url ?? "/";
    logger.error({ err: err.message, path: pathOf(url) }, "upstream unavailable");
    if (res.headersSent) return res.destroy();
    res.setHeader("Retry-After", "1");
    sendError(res, serviceUnavailable("Service temporarily unavailable"), envelopeForPath(pathOf(url)));
  };
  const forward = createForwarder({ internalSecret: config.INTERNAL_TOKEN, onError: unavailable });

  // Every /api/v1 response says which version answered, whoever produces it (docs/api.md, "Versions").
  app.use((req, res, next) => {
    if (isV1ApiPath(pathOf(req.url))) res.setHeader(API_VERSION_HEADER, API_VERSION);
    next();
  });

  // Failed authentications have a budget per client (hashed address), so a flood of made-up keys
  // costs neither a key lookup per request nor a management query per new key once it is spent.
  const authFailures: Window = { ...AUTH_FAILURE_WINDOW, limit: config.AUTH_FAILURE_LIMIT_PER_MINUTE };
  const authFailureSubjectOf = (req: Request) => authFailureSubject(clientHash(req));

  // First of all: one canonical path per request. Ambiguous ones (dot segments, encoded dots and
  // slashes, backslashes, NUL, ...) are refused with 400; the rest route and forward verbatim. A
  // refused API path has no key whose budget could be reported, so it reports the client's
  // failed-authentication budget (SPEC 8: headers on every response); it does not spend it.
  app.use((req, res, next) => {
    const canonical = canonicalPath(req.url);
    if (canonical.ok) {
      res.locals.canonicalUrl = canonical.url;
      return next();
    }
    if (!/^\/api(?:[/%?]|$)/i.test(req.url)) return sendPathRefusal(req, res, canonical.reason);
    deps.limiter
      .peek(authFailureSubjectOf(req), authFailures)
      .then((state) => reportWindow(res, state))
      .catch((err: unknown) => logger.error({ err: String(err) }, "rate limiter unavailable"))
      .finally(() => sendPathRefusal(req, res, canonical.reason));
  });
  app.use(healthRoutes(deps.readiness));
  const openapi = buildOpenApiDocument({ baseUrl: config.PUBLIC_BASE_URL });
  app
    .route("/api/v1/openapi.json")
    .get((_req, res) => {
      res.json(openapi);
    })
    .all(methodNotAllowed(["GET"]));
  app.use(docsRouter());

  const limiterDown = (err: unknown): never => {
    logger.error({ err: String(err) }, "rate limiter unavailable");
    throw serviceUnavailable("Service temporarily unavailable");
  };
  const reportWindow = (res: Response, state: WindowState) => {
    res.setHeader(RATE_LIMIT_HEADERS.limit, String(state.limit));
    res.setHeader(RATE_LIMIT_HEADERS.remaining, String(state.remaining));
    res.setHeader(RATE_LIMIT_HEADERS.reset, String(state.resetAt));
  };
  // SnipURL's documented wording (its clients show `error.message`); which budget it was is in
  // `details` (window, limit) and the X-RateLimit-* headers. The older API has no `details`, so its
  // message may name the budget instead.
  const exceededError = (state: WindowState, legacyMessage?: string) => {
    const retryAfter = Math.max(1, state.resetAt - Math.floor(Date.now() / 1000));
    return apiError(
      "RATE_LIMIT_EXCEEDED",
      legacyMessage ?? `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
      { limit: state.limit, window: state.name, retry_after: retryAfter },
      { headers: { [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter) } },
    );
  };

  /** Counts the request in every window, sets the X-RateLimit-* headers, and throws 429 when one is spent. */
  const enforceLimits = async (res: Response, subject: string, windows: Window[]): Promise<void> => {
    const states = await deps.limiter.hit(subject, windows).catch(limiterDown);
    const { state, exceeded } = reportedWindow(states);
    reportWindow(res, state);
    if (!exceeded) return;
    throw exceededError(state);
  };

  // Unauthenticated public API routes (e.g. /api/v1/public/*) are mounted here, before authentication.
  // Public analytics (issue 5): no key, so the budget is per client address (hashed: no raw IPs kept).
  app.use("/api/v1/public/analytics", async (req, res, next) => {
    try {
      // Counted first, so a refused method reports the budget it was charged to like any answer.
      await enforceLimits(res, `public:${clientHash(req)}`, [
        { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
      ]);
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
      forward(req, res, config.ANALYTICS_URL, routedUrl(res));
    } catch (err) {
      next(err);
    }
  });

  // A request without a valid key has no key whose budget could be counted, so its 401 (or 429) reports
  // the client's failed-authentication budget instead; 503s while keys cannot be checked report none.
  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const failSubject = authFailureSubjectOf(req);
      const spent = await deps.limiter.peek(failSubject, authFailures).catch(limiterDown);
      if (spent.count >= spent.limit) {
        reportWindow(res, { ...spent, remaining: 0 });
        const legacy = envelopeForPath(req.baseUrl + req.path) === "legacy";
        throw exceededError(
          spent,
          legacy
            ? `Too many failed authentications: ${spent.limit} per minute from this client; retry later`
            : undefined,
        );
      }
      const key = await deps.keys.authenticate(req.headers.authorization).catch(async (err: unknown) => {
        if (isApiError(err) && err.status === 401) {
          const [state] = await deps.limiter.hit(failSubject, [authFailures]).catch(() => []);
          if (state) reportWindow(res, state);
        }
        throw err;
      });
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
    forward(req, res, config.ANALYTICS_URL, routedUrl(res), res.locals.identity);
  });
  app.use("/api", authenticate, screen, (req, res) => {
    forward(req, res, config.MANAGEMENT_URL, routedUrl(res), res.locals.identity);
  });
  // Public campaign list pages (legacy API `list` URLs) are served by management, without a key.
  app.use("/c", (req, res) => {
    forward(req, res, config.MANAGEMENT_URL, routedUrl(res));
  });
  if (config.REDIRECT_URL) {
    app.use((req, res) => forward(req, res, config.REDIRECT_URL, routedUrl(res)));
  }
  installErrorHandlers(app, { logger, envelope: "auto" });
  return app;
}
