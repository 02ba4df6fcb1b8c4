// The hottest keyed reads answered on plain node:http in front of Express (decision 0023). Express's
// router, its middleware chain and `res.json` were about a quarter of management's CPU for a
// `GET /api/v1/links/:id` (docs/benchmarks.md). The route is still its record from contracts
// (decision 0010): the record's params schema parses, its response schema checks (in development and
// tests), its handler answers. Anything this path does not handle exactly as Express would (another
// method, HEAD, a conditional request, an encoded or differently cased path, a trailing slash) is
// passed to Express untouched, so both paths answer alike.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ROUTE_DEFS, type RouteDef } from "@kurz/contracts";
import etag from "etag";
import { requestLog, trackRequest } from "./access-log.ts";
import { envelopeForPath, sendError } from "./envelope.ts";
import { apiError, internalError, toApiError, unauthorized, validation } from "./errors.ts";
import { hasForwardToken, identityFrom } from "./internal-auth.ts";
import type { Logger } from "./logger.ts";
import { type MountedRoute, type RouteInput, responseValidationFrom } from "./routes.ts";

export interface DirectRoutesOptions {
  /** Records to answer here: keyed (forwarded) JSON routes without query or body. */
  routes: readonly MountedRoute[];
  internalToken: string;
  logger: Logger;
  /** Check responses against their records (default: responseValidationFrom(process.env)). */
  validateResponses?: boolean;
}

interface Compiled {
  route: MountedRoute<RouteDef>;
  method: string;
  /** Fixed segments as strings, parameters as their names prefixed with ":". */
  segments: string[];
}

function compile(route: MountedRoute<RouteDef>): Compiled {
  const { def } = route;
  if (def.auth === "public" || def.query || def.body || def.bodyParser || !def.response) {
    throw new Error(
      `directRoutes: ${def.method} ${def.path} is not a keyed JSON route without query or body`,
    );
  }
  return { route, method: def.method, segments: def.path.split("/") };
}

/**
 * Paths that name a route of their own (`/api/v1/links/bulk`): never a parameter of another route
 * (`/api/v1/links/:id`), whatever the method; Express, where the literal route is mounted, answers them
 * (a GET of `/links/bulk` is its 405, not a malformed link id).
 */
const LITERAL_PATHS = new Set(ROUTE_DEFS.filter((d) => !d.path.includes(":")).map((d) => d.path));

/** The params of `path` for `compiled`, or null when Express should decide (no match, or encoded). */
function match(compiled: Compiled, path: string): Record<string, string> | null {
  if (LITERAL_PATHS.has(path)) return null;
  const parts = path.split("/");
  if (parts.length !== compiled.segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const want = compiled.segments[i]!;
    const part = parts[i]!;
    if (want.startsWith(":")) {
      // Express would percent-decode the value: leave such paths to it.
      if (part === "" || part.includes("%")) return null;
      params[want.slice(1)] = part;
    } else if (part !== want) {
      return null;
    }
  }
  return params;
}

/** A request listener answering `routes` itself and passing every other request to `fallback`. */
export function directRoutes(options: DirectRoutesOptions, fallback: RequestListener): RequestListener {
  const compiled = options.routes.map(compile);
  const validate = options.validateResponses ?? responseValidationFrom(process.env);
  const { logger, internalToken } = options;

  const answer = async (
    c: Compiled,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
  ) => {
    const { def, handler } = c.route;
    if (!hasForwardToken(req, internalToken)) throw unauthorized("Missing or invalid internal token");
    const identity = identityFrom(req);
    if (!identity.accountId) throw unauthorized("No account identity on this request");
    if (def.auth === "session" && !identity.sessionId)
      throw unauthorized("Sign in: this route needs a session");
    let parsedParams: unknown;
    if (def.params) {
      const parsed = def.params.safeParse(params);
      if (!parsed.success) {
        throw def.invalidParams
          ? apiError(def.invalidParams.code, def.invalidParams.message)
          : validation(parsed.error);
      }
      parsedParams = parsed.data;
    }
    const input = {
      params: parsedParams,
      query: undefined,
      body: undefined,
      identity: {
        accountId: identity.accountId,
        keyId: identity.keyId,
        sessionId: identity.sessionId ?? null,
      },
      // Handlers on this path use only their parsed input (the records above have no query or body).
      req,
      res,
    } as unknown as RouteInput<RouteDef>;
    const result = await handler(input);
    if (validate) {
      const checked = def.response!.safeParse(result);
      if (!checked.success) {
        requestLog(req, logger)?.error(
          { route: `${def.method} ${def.path}`, issues: checked.error.issues },
          "response does not match route schema",
        );
        throw internalError();
      }
    }
    // As Express's res.json: the same body, content type and weak ETag.
    const payload = JSON.stringify(result);
    res.statusCode = def.status;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Content-Length", Buffer.byteLength(payload));
    res.setHeader("ETag", etag(payload, { weak: true }));
    res.end(payload);
  };

  return (req, res) => {
    const url = req.url ?? "/";
    const method = req.method ?? "";
    // Conditional requests may be answered 304 by Express's freshness check, and a body is Express's
    // body parsers' to refuse: its path decides both.
    const h = req.headers;
    if (
      method !== "GET" ||
      h["if-none-match"] ||
      h["if-modified-since"] ||
      h["transfer-encoding"] ||
      (h["content-length"] !== undefined && h["content-length"] !== "0")
    ) {
      return fallback(req, res);
    }
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    for (const c of compiled) {
      if (c.method !== method) continue;
      const params = match(c, path);
      if (!params) continue;
      trackRequest(logger, req, res);
      answer(c, params, req, res).catch((err: unknown) => {
        if (res.headersSent) return res.destroy();
        const error = toApiError(err);
        if (error.status >= 500) logger.error({ err, reqId: (req as { id?: unknown }).id }, "request failed");
        sendError(res, error, envelopeForPath(path));
      });
      return;
    }
    fallback(req, res);
  };
}
