// Routing: /api/v1/* and /api/* are authenticated and rate limited, then forwarded to the owning
// service; in single-machine mode every other path goes to the redirect service. The path is made
// canonical once, before anything routes on it, and exactly that path is forwarded (docs/security.md).
//
// Plain node:http, no framework: every API request crosses this process, and Express's router and
// middleware chain were a fifth to a quarter of its CPU per request (docs/benchmarks/2026-11.md,
// decision 0044).
// The gateway routes on a handful of prefixes, so a framework buys it nothing.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER, buildOpenApiDocument, isV1ApiPath } from "@kurz/contracts";
import {
  canonicalPath,
  drainBody,
  envelopeForPath,
  handleHealth,
  isApiPath,
  isCampaignPagePath,
  isProxiedSocket,
  methodNotAllowedError,
  NOSNIFF,
  NOSNIFF_HEADER,
  notFound,
  originHosts,
  sendError,
  sendJson,
  sendPathRefusal,
  serviceUnavailable,
  toApiError,
  trackRequest,
} from "@kurz/service-kit";
import { createApiRequests } from "./api-requests.ts";
import { type AuthenticatorDeps, createAuthenticator, pathOf } from "./authenticate.ts";
import { createBudgets } from "./budgets.ts";
import { createClientAddress, createClientHash } from "./client-hash.ts";
import { createClientOrigin } from "./client-origin.ts";
import { createDocsPage } from "./docs-page.ts";
import { createForwarder } from "./proxy.ts";
import { createReturnForwarder } from "./return-forwarder.ts";
import { createStatsPageStatus } from "./stats-page-status.ts";
import { createWebApp } from "./web-app.ts";

export interface GatewayDeps extends AuthenticatorDeps {
  readiness: Record<string, () => Promise<unknown>>;
  /** Counts the 429s answered, by spent window (service.ts reads it for metrics). */
  refusals?: Map<string, number>;
}

/** `path` is `prefix` or below it, segment-wise (as Express's `app.use(prefix)` matched). */
const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47); // "/"

export function createGatewayApp(deps: GatewayDeps): RequestListener {
  const { config, logger } = deps;
  const health = handleHealth(deps.readiness);
  const docs = createDocsPage();
  // Built on its first request, not at start: it is derived from every route's record (tens of ms of
  // CPU), and every gateway start, a test stack's too, paid for it whether anyone asked or not.
  let openapi: ReturnType<typeof buildOpenApiDocument> | undefined;
  const clientAddress = createClientAddress(config);
  const clientHash = createClientHash(config, clientAddress);
  const clientOrigin = createClientOrigin(clientAddress);
  const budgets = createBudgets(deps.limiter, logger, deps.refusals);
  const { authenticate, reportFailureBudget } = createAuthenticator(deps, budgets, clientHash);
  const origin = originHosts(config.PUBLIC_BASE_URL, config.PUBLIC_HOSTS);
  const statsStatus = createStatsPageStatus(config, budgets, clientHash);
  const webApp = createWebApp(origin, config.WEB_DIST_DIR || undefined, statsStatus);

  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url ?? "/");
    logger.error({ err: err.message, path }, "upstream unavailable");
    if (res.headersSent) return res.destroy();
    res.setHeader("Retry-After", "1");
    sendError(res, serviceUnavailable("Service temporarily unavailable"), envelopeForPath(path));
  };
  const forward = createForwarder({ internalSecret: config.INTERNAL_TOKEN, onError: unavailable });
  const sendBack = createReturnForwarder(config, unavailable);
  const api = createApiRequests({
    config,
    forward,
    budgets,
    authenticate,
    clientHash,
    clientOrigin,
  });

  // On a host that is not the origin's own (a branded domain, or any name pointed at this address) the
  // API, the docs page and the dashboard do not exist; the redirect answers such a request as that
  // host's (the domain's redirect_404, or the plain 404 page). A spliced connection's request goes back
  // to it; any other gets 421 Misdirected Request, on which the edge (infra/edge/nginx.conf) hands it to
  // the redirect, so the edge needs no list of the origin's hosts. Campaign pages are forwarded on every
  // host: management serves one on a branded domain to the domain's owner only.
  const elsewhere = (req: IncomingMessage, res: ServerResponse, rawUrl: string) => {
    if (isProxiedSocket(req.socket)) return sendBack(req, res, rawUrl);
    req.resume();
    res.writeHead(421, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(req.method === "HEAD" ? undefined : "Misdirected request: not a page of this host\n");
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const rawUrl = req.url ?? "/";
    // A spliced connection is the public origin's: what the redirect would not have passed on is its own.
    if (isProxiedSocket(req.socket) && !isApiPath(rawUrl)) return sendBack(req, res, rawUrl);
    // Readiness and liveness answer on the gateway's own address (a container's healthcheck), which
    // the public origin never forwards to.
    if (health(req, res)) return;
    if (!origin.has(req.headers.host) && !isCampaignPagePath(rawUrl)) return elsewhere(req, res, rawUrl);
    // Every /api/v1 response says which version answered, whoever produces it (docs/api.md, "Versions").
    if (isV1ApiPath(pathOf(rawUrl))) res.setHeader(API_VERSION_HEADER, API_VERSION);

    // First of all: one canonical path per request. Ambiguous ones (dot segments, encoded dots and
    // slashes, backslashes, NUL, ...) are refused with 400; the rest route and forward verbatim. A
    // refused API path has no key whose budget could be reported, so it reports the client's
    // failed-authentication budget (rate-limit headers are on every response); it does not spend it.
    const canonical = canonicalPath(rawUrl);
    if (!canonical.ok) {
      if (/^\/api(?:[/%?]|$)/i.test(rawUrl)) {
        await reportFailureBudget(req, res);
      }
      return sendPathRefusal(req, res, canonical.reason);
    }
    const url = canonical.url;
    // Routes match without regard to case, as Express's did; the path is forwarded as sent.
    const path = pathOf(url).toLowerCase();

    if (path === "/api/v1/openapi.json" || path === "/api/v1/openapi.json/") {
      if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
      openapi ??= buildOpenApiDocument({ baseUrl: config.PUBLIC_BASE_URL });
      return sendJson(res, 200, openapi);
    }
    if (under(path, "/docs") && docs(req, res, path)) return;

    if (under(path, "/api")) return api(req, res, url, path);
    // Public campaign list pages (legacy API `list` URLs) are served by management, without a key.
    if (under(path, "/c")) return forward(req, res, config.MANAGEMENT_URL, url);
    // The dashboard's pages and files; its asset names are case-sensitive.
    if (webApp(req, res, pathOf(url))) return;
    if (config.REDIRECT_URL) return forward(req, res, config.REDIRECT_URL, url);
    throw notFound("Route not found");
  };

  return (req, res) => {
    trackRequest(logger, req, res);
    // Every answer of the public API, the docs and the dashboard, forwarded ones too (an upstream's
    // headers are merged over it): never sniffed into another type (security-headers.ts).
    res.setHeader(NOSNIFF_HEADER, NOSNIFF);
    route(req, res).catch(async (err: unknown) => {
      if (res.headersSent) return res.destroy();
      const apiError = toApiError(err);
      if (apiError.status >= 500 && apiError.code === "INTERNAL_ERROR") {
        logger.error({ err, reqId: (req as { id?: unknown }).id }, "request failed");
      }
      // Every 503 says when to try again (a key not checkable, the rate limiter's Redis down), as the
      // forwarder's own does; found by the fault suite (tests/chaos/faults.test.ts, Redis stopped).
      if (apiError.status === 503 && !res.hasHeader("Retry-After")) res.setHeader("Retry-After", "1");
      // With a body still arriving, an answer followed by a close would be reset away (drainBody).
      await drainBody(req);
      sendError(res, apiError, envelopeForPath(pathOf(req.url ?? "/")));
    });
  };
}
