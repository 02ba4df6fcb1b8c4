// Routing: /api/v1/* and /api/* are authenticated and rate limited, then forwarded to the owning
// service; in single-machine mode every other path goes to the redirect service.
import type { IncomingMessage, ServerResponse } from "node:http";
import { buildOpenApiDocument } from "@kurz/contracts";
import { ApiError, createApp, healthRoutes, installErrorHandlers, type Logger } from "@kurz/service-kit";
import type { Express, NextFunction, Request, Response } from "express";
import type { ApiKeys } from "./api-keys.ts";
import type { GatewayConfig } from "./config.ts";
import { docsPage } from "./docs-page.ts";
import { createForwarder } from "./proxy.ts";
import { type RateLimiter, reportedWindow } from "./rate-limit.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  keys: ApiKeys;
  limiter: RateLimiter;
  readiness: Record<string, () => Promise<unknown>>;
}

const isLegacy = (path: string) =>
  path.startsWith("/api/") && !path.startsWith("/api/v1/") && path !== "/api/v1";

export function createGatewayApp(deps: GatewayDeps): Express {
  const { config, logger } = deps;
  // Bodies stream through to the upstream untouched; the owning service parses and validates them.
  const app = createApp({ logger, envelope: "auto", json: false });

  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse) => {
    logger.error({ err: err.message, url: req.url }, "upstream unavailable");
    if (res.headersSent) return res.destroy();
    const legacy = isLegacy(req.url ?? "");
    const body = legacy
      ? { error: 1, message: "Service temporarily unavailable" }
      : {
          success: false,
          error: { code: "SERVICE_UNAVAILABLE", message: "Service temporarily unavailable" },
        };
    res.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
    res.end(JSON.stringify(body));
  };
  const forward = createForwarder({ internalToken: config.INTERNAL_TOKEN, onError: unavailable });

  app.use(healthRoutes(deps.readiness));
  const openapi = buildOpenApiDocument({ baseUrl: config.PUBLIC_BASE_URL });
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openapi);
  });
  app.get("/docs", (_req, res) => {
    res.type("html").send(docsPage("/api/v1/openapi.json"));
  });

  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const key = await deps.keys.authenticate(req.headers.authorization);
      const legacy = isLegacy(req.path);
      const windows = legacy
        ? [{ name: "1m", seconds: 60, limit: config.LEGACY_RATE_LIMIT_PER_MINUTE }]
        : [
            { name: "1m", seconds: 60, limit: key.rate_limit_per_minute ?? config.RATE_LIMIT_PER_MINUTE },
            { name: "1h", seconds: 3600, limit: key.rate_limit_per_hour ?? config.RATE_LIMIT_PER_HOUR },
          ];
      const states = await deps.limiter.hit(`${legacy ? "legacy" : "v1"}:${key.key_id}`, windows);
      const { state, exceeded } = reportedWindow(states);
      res.setHeader("X-RateLimit-Limit", String(state.limit));
      res.setHeader("X-RateLimit-Remaining", String(state.remaining));
      res.setHeader("X-RateLimit-Reset", String(state.resetAt));
      if (exceeded) {
        const retryAfter = Math.max(1, state.resetAt - Math.floor(Date.now() / 1000));
        res.setHeader("Retry-After", String(retryAfter));
        throw new ApiError(
          429,
          "RATE_LIMIT_EXCEEDED",
          `Rate limit exceeded: ${state.limit} requests per ${state.name}`,
          {
            limit: state.limit,
            window: state.name,
            retry_after: retryAfter,
          },
        );
      }
      res.locals.identity = { accountId: key.account_id, keyId: key.key_id };
      next();
    } catch (err) {
      next(err);
    }
  };

  // app.use strips the mount path from req.url; upstreams need the original one.
  app.use("/api/v1/analytics", authenticate, (req, res) => {
    req.url = req.originalUrl;
    forward(req, res, config.ANALYTICS_URL, res.locals.identity);
  });
  app.use("/api", authenticate, (req, res) => {
    req.url = req.originalUrl;
    forward(req, res, config.MANAGEMENT_URL, res.locals.identity);
  });
  if (config.REDIRECT_URL) {
    app.use((req, res) => forward(req, res, config.REDIRECT_URL));
  }
  installErrorHandlers(app, { logger, envelope: "auto" });
  return app;
}
