// Routing: /api/v1/* and /api/* are authenticated and rate limited, then forwarded to the owning
// service; in single-machine mode every other path goes to the redirect service. The path is made
// canonical once, before anything routes on it, and exactly that path is forwarded (docs/security.md).
//
// Plain node:http, no framework: every API request crosses this process, and Express's router and
// middleware chain were a fifth to a quarter of its CPU per request (docs/benchmarks.md, decision 0018).
// The gateway routes on a handful of prefixes, so a framework buys it nothing.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import {
  API_VERSION,
  API_VERSION_HEADER,
  type ApiService,
  buildOpenApiDocument,
  CSRF_HEADER,
  createRouteDispatch,
  IMPORT_MAX_BYTES,
  INTERNAL_ROUTES,
  isV1ApiPath,
  RATE_LIMIT_HEADERS,
  ROUTES,
} from "@kurz/contracts";
import {
  AUTH_FAILURE_WINDOW,
  apiError,
  authFailureSubject,
  canonicalPath,
  clientBudgetHash,
  createInternalClient,
  drainBody,
  envelopeForPath,
  forbidden,
  handleHealth,
  type Identity,
  internalHeaders,
  isApiError,
  isApiPath,
  isCampaignPagePath,
  isProxiedSocket,
  type Logger,
  methodNotAllowedError,
  NOSNIFF,
  NOSNIFF_HEADER,
  notFound,
  originHosts,
  payloadTooLarge,
  sendError,
  sendJson,
  sendPathRefusal,
  serviceUnavailable,
  sessionCookie,
  sessionTokenFrom,
  toApiError,
  trackRequest,
} from "@kurz/service-kit";
import { LRUCache } from "lru-cache";
import proxyAddr from "proxy-addr";
import type { ApiKeys } from "./api-keys.ts";
import type { GatewayConfig } from "./config.ts";
import { createDocsPage } from "./docs-page.ts";
import type { KeyUsageRecorder } from "./key-usage.ts";
import { createForwarder } from "./proxy.ts";
import { type RateLimiter, reportedWindow, type Window, type WindowState } from "./rate-limit.ts";
import { createReturnForwarder } from "./return-forwarder.ts";
import { RouteTable } from "./route-table.ts";
import { Sessions } from "./sessions.ts";
import { createWebApp, type StatsPageStatus } from "./web-app.ts";

export interface GatewayDeps {
  config: GatewayConfig;
  logger: Logger;
  keys: ApiKeys;
  sessions: Sessions;
  limiter: RateLimiter;
  keyUsage: KeyUsageRecorder;
  readiness: Record<string, () => Promise<unknown>>;
}

/** Clients whose address hash is kept in memory (client-budget.ts), about 100 bytes each. */
const CLIENT_HASHES_MAX = 10_000;

/** Same as a key's default budget (SPEC 8); public analytics are read-only and cheap. */
const PUBLIC_RATE_LIMIT_PER_MINUTE = 60;

/** Which service answers an API path and whether it takes a credential, from contracts' records. */
const dispatch = createRouteDispatch();

/**
 * The older API's routes a browser session may use: the resources the dashboard manages (issue 13).
 * `/api/account/update` stays key-only: it changes the password without the current one, which a
 * session may only do through `/api/v1/account/password`.
 */
// Plain segments only: no dot segments or escapes that an upstream could resolve elsewhere.
const LEGACY_SESSION_RESOURCES = /^\/api\/(domains?|campaigns?|channels?|overlay)(\/[A-Za-z0-9_-]+)*\/?$/;
export const acceptsSessionOnLegacy = (path: string) => LEGACY_SESSION_RESOURCES.test(path);

/** Methods that change nothing: the only ones a session may use without its CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const pathOf = (url: string) => url.split("?", 1)[0]!;

/** `path` is `prefix` or below it, segment-wise (as Express's `app.use(prefix)` matched). */
const under = (path: string, prefix: string) =>
  path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47); // "/"

export function createGatewayApp(deps: GatewayDeps): RequestListener {
  const { config, logger } = deps;
  const routes = new RouteTable();
  const health = handleHealth(deps.readiness);
  const docs = createDocsPage();
  // Built on its first request, not at start: it is derived from every route's record (tens of ms of
  // CPU), and every gateway start, a test stack's too, paid for it whether anyone asked or not.
  let openapi: ReturnType<typeof buildOpenApiDocument> | undefined;
  const management = createInternalClient(
    config.MANAGEMENT_URL,
    internalHeaders(config.INTERNAL_TOKEN, "gateway"),
  );
  // A stats page's status comes from management's answer for public analytics (the same one analytics
  // asks), charged to the client's public budget like the API call the page then makes.
  const statsStatus: StatsPageStatus = async (req, res, shortCode) => {
    try {
      await enforceLimits(res, `public:${clientHash(req)}`, [
        { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
      ]);
    } catch (err) {
      if (isApiError(err) && err.status === 429) return 429;
      throw err;
    }
    const answer = await management.call(
      INTERNAL_ROUTES.getPublicAnalyticsLink,
      { short_code: shortCode },
      { timeoutMs: 2_000 },
    );
    await answer.body?.cancel();
    return answer.status === 404 ? 404 : 200;
  };
  const origin = originHosts(config.PUBLIC_BASE_URL, config.PUBLIC_HOSTS);
  const webApp = createWebApp(origin, config.WEB_DIST_DIR || undefined, statsStatus);

  // The client's address (per-client limits on public endpoints) is the visitor's, not that of the
  // proxies in front: TRUST_PROXY hops of X-Forwarded-For are believed, with Express's semantics
  // (proxy-addr is what Express itself uses), and only its keyed hash is kept (client-budget.ts).
  const trustHops = config.TRUST_PROXY;
  const trust = (_address: string, hop: number) => hop < trustHops;
  // A spliced connection (decision 0038) carries the client's bytes as the redirect received them, and
  // its peer is the one the redirect saw (the PROXY header): the redirect's hops are the ones to believe.
  const splicedHops = config.SPLICE_TRUST_PROXY;
  const splicedTrust = (_address: string, hop: number) => hop < splicedHops;
  // An HMAC per request was measurable and a client sends many: each address's hash is kept (bounded,
  // least recently used dropped first; the addresses stay in this process's memory only).
  const clientHashes = new LRUCache<string, string>({ max: CLIENT_HASHES_MAX });
  const clientHash = (req: IncomingMessage) => {
    const address = proxyAddr(req, isProxiedSocket(req.socket) ? splicedTrust : trust) ?? "";
    let hash = clientHashes.get(address);
    if (hash === undefined) {
      hash = clientBudgetHash(config.INTERNAL_TOKEN, address);
      clientHashes.set(address, hash);
    }
    return hash;
  };

  const unavailable = (err: Error, req: IncomingMessage, res: ServerResponse) => {
    const path = pathOf(req.url ?? "/");
    logger.error({ err: err.message, path }, "upstream unavailable");
    if (res.headersSent) return res.destroy();
    res.setHeader("Retry-After", "1");
    sendError(res, serviceUnavailable("Service temporarily unavailable"), envelopeForPath(path));
  };
  const forward = createForwarder({ internalSecret: config.INTERNAL_TOKEN, onError: unavailable });
  const sendBack = createReturnForwarder(config, unavailable);

  // Failed authentications have a budget per client (hashed address), so a flood of made-up keys
  // costs neither a key lookup per request nor a management query per new key once it is spent.
  const authFailures: Window = { ...AUTH_FAILURE_WINDOW, limit: config.AUTH_FAILURE_LIMIT_PER_MINUTE };

  const limiterDown = (err: unknown): never => {
    logger.error({ err: String(err) }, "rate limiter unavailable");
    throw serviceUnavailable("Service temporarily unavailable");
  };
  const reportWindow = (res: ServerResponse, state: WindowState) => {
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
  const enforceLimits = async (res: ServerResponse, subject: string, windows: Window[]): Promise<void> => {
    const states = await deps.limiter.hit(subject, windows).catch(limiterDown);
    const { state, exceeded } = reportedWindow(states);
    reportWindow(res, state);
    if (exceeded) throw exceededError(state);
  };

  // A request without a valid key has no key whose budget could be counted, so its 401 (or 429) reports
  // the client's failed-authentication budget instead; 503s while keys cannot be checked report none.
  const authenticate = async (req: IncomingMessage, res: ServerResponse, legacy: boolean) => {
    const failSubject = authFailureSubject(clientHash(req));
    const budgetLeft = deps.limiter
      .peek(failSubject, authFailures)
      .catch(limiterDown)
      .then((spent) => {
        if (spent.count < spent.limit) return;
        reportWindow(res, { ...spent, remaining: 0 });
        throw exceededError(
          spent,
          legacy
            ? `Too many failed authentications: ${spent.limit} per minute from this client; retry later`
            : undefined,
        );
      });
    // Awaited below in every branch; this only keeps an early rejection from counting as unhandled.
    budgetLeft.catch(() => {});
    const countFailure = async (err: unknown): Promise<never> => {
      if (isApiError(err) && err.status === 401) {
        const [state] = await deps.limiter.hit(failSubject, [authFailures]).catch(() => []);
        if (state) reportWindow(res, state);
      }
      throw err;
    };
    // A session authenticates /api/v1 requests and the older API's domain, campaign, channel and
    // overlay routes (the dashboard manages them through the one store, issue 13) that carry no
    // Authorization header; with one, the cookie is ignored (a key's request never takes on a
    // browser's identity).
    const sessionToken =
      (!legacy || acceptsSessionOnLegacy(pathOf(req.url ?? "/"))) && req.headers.authorization === undefined
        ? sessionTokenFrom(req.headers.cookie, { publicBaseUrl: config.PUBLIC_BASE_URL })
        : null;
    if (sessionToken !== null) {
      await budgetLeft;
      const session = await deps.sessions.authenticate(sessionToken).catch(countFailure);
      return authenticatedSession(req, res, session);
    }
    // The key's cache read goes out with the budget's peek, in one Redis round trip (auto-pipelining):
    // a round trip less per keyed request. A key the cache lacks is asked of management only once the
    // budget is known to be left, and a spent budget answers 429 whatever the key (as before).
    const lookup = deps.keys.authenticate(req.headers.authorization, Date.now(), budgetLeft);
    lookup.catch(() => {});
    await budgetLeft;
    const key = await lookup.catch(countFailure);
    deps.keyUsage.record(key.key_id);
    const windows: Window[] = legacy
      ? [{ name: "1m", seconds: 60, limit: config.LEGACY_RATE_LIMIT_PER_MINUTE }]
      : [
          { name: "1m", seconds: 60, limit: key.rate_limit_per_minute },
          { name: "1h", seconds: 3600, limit: key.rate_limit_per_hour },
        ];
    await enforceLimits(res, `${legacy ? "legacy" : "v1"}:${key.key_id}`, windows);
    return { accountId: key.account_id, keyId: key.key_id } satisfies Identity;
  };

  // A session's requests share one budget per account; a write must carry the session's CSRF token,
  // which a cross-site page cannot read or send (docs/decisions/0021-sessions-and-csrf.md).
  const authenticatedSession = async (
    req: IncomingMessage,
    res: ServerResponse,
    session: Awaited<ReturnType<Sessions["authenticate"]>>,
  ): Promise<Identity> => {
    const { record } = session;
    await enforceLimits(res, `session:${record.account_id}`, [
      { name: "1m", seconds: 60, limit: config.SESSION_RATE_LIMIT_PER_MINUTE },
    ]);
    if (!SAFE_METHODS.has(req.method ?? "") && !Sessions.csrfMatches(record, req.headers[CSRF_HEADER])) {
      throw forbidden("CSRF token missing or invalid");
    }
    if (session.renewedForSeconds !== undefined) {
      res.setHeader(
        "Set-Cookie",
        sessionCookie(session.token, session.renewedForSeconds, { publicBaseUrl: config.PUBLIC_BASE_URL }),
      );
    }
    return {
      accountId: record.account_id,
      keyId: null,
      sessionId: record.session_id,
      clientHash: clientHash(req),
    };
  };

  // Answered here so every upstream gets the same 405 and oversized bodies never travel further.
  const screen = (req: IncomingMessage, path: string) => {
    const allowed = routes.allowedMethods(path);
    if (allowed && !allowed.includes(req.method ?? "")) throw methodNotAllowedError(allowed);
    const length = Number(req.headers["content-length"] ?? 0);
    // An import's body is a file (docs/import-export.md): its own limit, which management enforces too.
    const isUpload =
      req.method === ROUTES.createImport.method && path.replace(/\/+$/, "") === ROUTES.createImport.path;
    const limit = isUpload ? IMPORT_MAX_BYTES : config.MAX_BODY_BYTES;
    if (length > limit) {
      throw payloadTooLarge(`Request body is larger than ${limit} bytes`);
    }
  };

  /** A keyed API request: authenticated, counted, checked, then forwarded with the caller's identity. */
  const keyed = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: string,
    path: string,
    target: string,
  ) => {
    const identity = await authenticate(req, res, envelopeForPath(path) === "legacy");
    screen(req, path);
    // Upstreams act on the identity established here; the session token never travels further.
    delete req.headers.cookie;
    forward(req, res, target, url, identity);
  };

  /** Sign-up and sign-in: no credential; a budget per client, whose keyed hash management also gets. */
  const anonymous = async (req: IncomingMessage, res: ServerResponse, url: string, path: string) => {
    const client = clientHash(req);
    await enforceLimits(res, `auth:${client}`, [
      { name: "1m", seconds: 60, limit: config.AUTH_RATE_LIMIT_PER_MINUTE },
    ]);
    screen(req, path);
    delete req.headers.cookie;
    forward(req, res, config.MANAGEMENT_URL, url, { clientHash: client });
  };

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

  const upstreams: Record<ApiService, string> = {
    management: config.MANAGEMENT_URL,
    analytics: config.ANALYTICS_URL,
  };

  /**
   * An API request, to the service its route record names (management for a path no record's prefix
   * covers), with the credentials the record takes.
   */
  const api = async (req: IncomingMessage, res: ServerResponse, url: string, path: string) => {
    const { service, auth } = dispatch(path) ?? { service: "management", auth: "key" };
    if (auth !== "public") return keyed(req, res, url, path, upstreams[service]);
    if (service === "management") return anonymous(req, res, url, path);
    // Published analytics: no key, so the budget is per client address (hashed: no raw IPs kept).
    // Counted first, so a refused method reports the budget it was charged to like any answer.
    await enforceLimits(res, `public:${clientHash(req)}`, [
      { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
    ]);
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
    return forward(req, res, upstreams[service], url);
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
    // failed-authentication budget (SPEC 8: headers on every response); it does not spend it.
    const canonical = canonicalPath(rawUrl);
    if (!canonical.ok) {
      if (/^\/api(?:[/%?]|$)/i.test(rawUrl)) {
        await deps.limiter
          .peek(authFailureSubject(clientHash(req)), authFailures)
          .then((state) => reportWindow(res, state))
          .catch((err: unknown) => logger.error({ err: String(err) }, "rate limiter unavailable"));
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
    // The dashboard's pages and files (issue 12); its asset names are case-sensitive.
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
