// The API's requests (`/api/*`, canonical and lower-cased): each goes to the service its route record
// names, with the credentials the record takes (contracts' route-dispatch.ts), after the checks every
// upstream shares (405, body size).
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type ApiService,
  createRouteDispatch,
  fixedPrefix,
  IMPORT_MAX_BYTES,
  OG_IMAGE_READ_MAX_BYTES,
  ROUTES,
} from "@kurz/contracts";
import {
  deviceTokenFrom,
  envelopeForPath,
  methodNotAllowedError,
  payloadTooLarge,
  ssoFlowCookieName,
  ssoFlowFrom,
} from "@kurz/service-kit";
import type { Authenticator } from "./authenticate.ts";
import { type Budgets, IMAGE_RATE_LIMIT_PER_MINUTE, PUBLIC_RATE_LIMIT_PER_MINUTE } from "./budgets.ts";
import type { ClientHash } from "./client-hash.ts";
import type { ClientOrigin } from "./client-origin.ts";
import type { GatewayConfig } from "./config.ts";
import type { createForwarder } from "./proxy.ts";
import { RouteTable } from "./route-table.ts";

/** Which service answers an API path and whether it takes a credential, from contracts' records. */
const dispatch = createRouteDispatch();
/** `/api/v1/images/`: below it, only public image reads (`POST /api/v1/images` is the path itself). */
const IMAGES_PREFIX = `${fixedPrefix(ROUTES.getImage)}/`;

export interface ApiRequestDeps {
  config: GatewayConfig;
  forward: ReturnType<typeof createForwarder>;
  budgets: Budgets;
  authenticate: Authenticator["authenticate"];
  clientHash: ClientHash;
  /** The client's address prefix and user-agent family, which management's audit log records. */
  clientOrigin: (req: IncomingMessage) => ClientOrigin;
}

/** Answers an API request at `url` (the canonical URL, forwarded as is) routed by `path`. */
export type ApiRequests = (
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  path: string,
) => Promise<void>;

export function createApiRequests({
  config,
  forward,
  budgets,
  authenticate,
  clientHash,
  clientOrigin,
}: ApiRequestDeps): ApiRequests {
  const routes = new RouteTable();
  const { enforceLimits } = budgets;

  // Answered here so every upstream gets the same 405 and oversized bodies never travel further.
  const screen = (req: IncomingMessage, path: string) => {
    const allowed = routes.allowedMethods(path);
    if (allowed && !allowed.includes(req.method ?? "")) throw methodNotAllowedError(allowed);
    const length = Number(req.headers["content-length"] ?? 0);
    // An import's body is a file (docs/import-export.md): its own limit, which management enforces too.
    const exact = path.replace(/\/+$/, "");
    const limit =
      req.method === ROUTES.createImport.method && exact === ROUTES.createImport.path
        ? IMPORT_MAX_BYTES
        : req.method === ROUTES.uploadImage.method && exact === ROUTES.uploadImage.path
          ? OG_IMAGE_READ_MAX_BYTES
          : config.MAX_BODY_BYTES;
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
    // Only management writes the audit log; the other upstreams need no trace of the client.
    forward(
      req,
      res,
      target,
      url,
      target === config.MANAGEMENT_URL ? { ...identity, ...clientOrigin(req) } : identity,
    );
  };

  /** Sign-up and sign-in: no credential; a budget per client, whose keyed hash management also gets. */
  const anonymous = async (req: IncomingMessage, res: ServerResponse, url: string, path: string) => {
    const client = clientHash(req);
    await enforceLimits(res, `auth:${client}`, [
      { name: "1m", seconds: 60, limit: config.AUTH_RATE_LIMIT_PER_MINUTE },
    ]);
    screen(req, path);
    // The device cookie goes on as a header of its own (management announces sign-ins from new
    // browsers); nothing else of the cookies does.
    const cookieOptions = { publicBaseUrl: config.PUBLIC_BASE_URL };
    const device = deviceTokenFrom(req.headers.cookie, cookieOptions);
    // A single sign-on's return carries the cookie that binds its flow to this browser, alone.
    const flow = path === ROUTES.finishSso.path ? ssoFlowFrom(req.headers.cookie, cookieOptions) : null;
    delete req.headers.cookie;
    if (flow !== null) req.headers.cookie = `${ssoFlowCookieName(cookieOptions)}=${flow}`;
    forward(req, res, config.MANAGEMENT_URL, url, { clientHash: client, device, ...clientOrigin(req) });
  };

  /**
   * An uploaded image (link previews): public, immutable and fetched by chat apps' preview fetchers,
   * so it has a budget of its own rather than the sign-in budget its owner (management) would give it.
   */
  const image = async (req: IncomingMessage, res: ServerResponse, url: string) => {
    const client = clientHash(req);
    await enforceLimits(res, `image:${client}`, [
      { name: "1m", seconds: 60, limit: IMAGE_RATE_LIMIT_PER_MINUTE },
    ]);
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
    delete req.headers.cookie;
    forward(req, res, config.MANAGEMENT_URL, url, { clientHash: client });
  };

  const upstreams: Record<ApiService, string> = {
    management: config.MANAGEMENT_URL,
    analytics: config.ANALYTICS_URL,
  };

  /**
   * An API request, to the service its route record names (management for a path no record's prefix
   * covers), with the credentials the record takes.
   */
  return async (req: IncomingMessage, res: ServerResponse, url: string, path: string) => {
    const { service, auth } = dispatch(path) ?? { service: "management", auth: "key" };
    if (auth !== "public") return keyed(req, res, url, path, upstreams[service]);
    if (path.startsWith(IMAGES_PREFIX)) return image(req, res, url);
    if (service === "management") return anonymous(req, res, url, path);
    // Published analytics: no key, so the budget is per client address (hashed: no raw IPs kept).
    // Counted first, so a refused method reports the budget it was charged to like any answer.
    await enforceLimits(res, `public:${clientHash(req)}`, [
      { name: "1m", seconds: 60, limit: PUBLIC_RATE_LIMIT_PER_MINUTE },
    ]);
    if (req.method !== "GET" && req.method !== "HEAD") throw methodNotAllowedError(["GET", "HEAD"]);
    forward(req, res, upstreams[service], url);
  };
}
