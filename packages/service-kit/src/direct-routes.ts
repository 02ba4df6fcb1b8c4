// The hottest keyed reads answered on plain node:http in front of Express (decision 0044). Express's
// router, its middleware chain and `res.json` were about a quarter of management's CPU for a
// `GET /api/v1/links/:id` (docs/benchmarks/2026-11.md). The route is still its record from contracts
// (decision 0010), run by the same pipeline as on Express (route-pipeline.ts): this file is only a
// transport, which matches the path, reads the body and sends the JSON. Anything this path does not handle exactly as Express would (another
// method, HEAD, a conditional request, an encoded or differently cased path, a trailing slash) is
// passed to Express untouched, so both paths answer alike.
// Since decision 0044 a keyed JSON route with a body (`POST /api/v1/links`, the hottest write) can be
// answered here too, but only for the one plain form of body every client sends: `application/json`
// (charset UTF-8 or none), no content coding, a Content-Length within the limit. Every other body (chunked,
// compressed, another media type or charset, too large, empty) goes to Express and its body parser,
// which decide as before. What this path parses it parses as that parser does (strict JSON: an
// object or array; a UTF-8 byte-order mark dropped), and a malformed body is the same 400.
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { ROUTE_DEFS, type RouteDef } from "@kurz/contracts";
import etag from "etag";
import { trackRequest } from "./access-log.ts";
import { envelopeForPath, sendError } from "./envelope.ts";
import { logRequestFailure, toApiError, unauthorized } from "./errors.ts";
import { hasForwardToken, identityFrom } from "./internal-auth.ts";
import type { Logger } from "./logger.ts";
import { type MountedRoute, type RouteRequest, responseValidationFrom, runRoute } from "./route-pipeline.ts";
import { NOSNIFF, NOSNIFF_HEADER } from "./security-headers.ts";

export interface DirectRoutesOptions {
  /** Records to answer here: keyed (forwarded) JSON routes without query (a body only on a non-GET). */
  routes: readonly MountedRoute[];
  /** The largest body read here (default 1 MiB, the Express app's `express.json` limit); larger ones go to Express. */
  bodyLimitBytes?: number;
  internalToken: string;
  logger: Logger;
  /** Check responses against their records (default: responseValidationFrom(process.env)). */
  validateResponses?: boolean;
  /** Errors meaning a dependency is down (answered 503 with Retry-After), as the Express app's. */
  isUnavailable?: (err: unknown) => boolean;
}

interface Compiled {
  route: MountedRoute<RouteDef>;
  method: string;
  /** Fixed segments as strings, parameters as their names prefixed with ":". */
  segments: string[];
  /** The route takes a JSON body (then never a GET). */
  body: boolean;
}

function compile(route: MountedRoute<RouteDef>): Compiled {
  const { def } = route;
  const body = def.body !== undefined;
  if (
    def.auth === "public" ||
    def.query ||
    def.bodyParser ||
    !def.response ||
    body === (def.method === "GET")
  ) {
    throw new Error(
      `directRoutes: ${def.method} ${def.path} is not a keyed JSON route without query (with a body unless a GET)`,
    );
  }
  return { route, method: def.method, segments: def.path.split("/"), body };
}

/** Express's JSON parser's default limit ("1mb"). */
const BODY_LIMIT = 1024 * 1024;

/** The media types this path reads, as written after lower-casing and dropping spaces. */
const PLAIN_JSON = new Set(["application/json", "application/json;charset=utf-8"]);

/** True when the request's body is of the one form read here (see the header). */
function plainJsonBody(h: IncomingMessage["headers"], limit: number): boolean {
  const length = h["content-length"];
  const type = h["content-type"];
  return (
    length !== undefined &&
    /^[1-9][0-9]{0,9}$/.test(length) &&
    Number(length) <= limit &&
    h["content-encoding"] === undefined &&
    type !== undefined &&
    PLAIN_JSON.has(type.toLowerCase().replaceAll(" ", ""))
  );
}

/** body-parser's strict JSON: the first character that is not JSON whitespace opens an object or array. */
const STRICT_FIRST = /^[ \t\n\r]*([^ \t\n\r])/;

/** The body parsed as Express's JSON parser would, or its 400 (the same error as its parse failure). */
function parseJson(bytes: Buffer): unknown {
  // iconv-lite, which that parser decodes with, drops a byte-order mark.
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {}; // that parser's reading of an empty body (here: a lone mark)
  const first = STRICT_FIRST.exec(text)?.[1];
  try {
    if (first !== "{" && first !== "[") throw new SyntaxError("not a JSON object or array");
    return JSON.parse(text);
  } catch (err) {
    throw toApiError(Object.assign(err as Error, { type: "entity.parse.failed", status: 400 }));
  }
}

/** The whole body (Node's parser holds it to Content-Length), or a rejection if the client went away. */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on("error", reject);
    req.on("aborted", () => reject(new Error("request aborted")));
  });
}

/**
 * Paths that name a route of their own (`/api/v1/links/bulk`): never a parameter of another route
 * (`/api/v1/links/:id`), whatever the method; Express, where the literal route is mounted, answers them
 * (a GET of `/links/bulk` is its 405, not a malformed link id).
 */
const LITERAL_PATHS = new Set(ROUTE_DEFS.filter((d) => !d.path.includes(":")).map((d) => d.path));

/** The params of `path` for `compiled`, or null when Express should decide (no match, or encoded). */
function match(compiled: Compiled, path: string): Record<string, string> | null {
  if (LITERAL_PATHS.has(path)) return path === compiled.route.def.path ? {} : null;
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
  const { logger, internalToken } = options;
  const check = { validate: options.validateResponses ?? responseValidationFrom(process.env), logger };
  const bodyLimit = options.bodyLimitBytes ?? BODY_LIMIT;

  const answer = async (
    c: Compiled,
    params: Record<string, string>,
    req: IncomingMessage,
    res: ServerResponse,
  ) => {
    const { def } = c.route;
    // Express parses the body before any route or credential check: a malformed one is its 400 first.
    const body = c.body ? parseJson(await readBody(req)) : undefined;
    // The hop from the gateway, as requireForwarded checks it before Express's routes.
    if (!hasForwardToken(req, internalToken)) throw unauthorized("Missing or invalid internal token");
    const result = await runRoute(
      c.route,
      // Handlers on this path use only their parsed input (the records above have no query).
      { identity: identityFrom(req), params, query: undefined, body, req, res } as unknown as RouteRequest,
      check,
    );
    // As Express's res.json: the same body, content type and weak ETag.
    const payload = JSON.stringify(result);
    res.statusCode = def.status;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader(NOSNIFF_HEADER, NOSNIFF);
    res.setHeader("Content-Length", Buffer.byteLength(payload));
    res.setHeader("ETag", etag(payload, { weak: true }));
    res.end(payload);
  };

  return (req, res) => {
    const url = req.url ?? "/";
    const method = req.method ?? "";
    // Conditional requests may be answered 304 by Express's freshness check, and a body other than
    // the plain JSON read here is Express's body parsers' to refuse or decode: its path decides both.
    const h = req.headers;
    if (h["if-none-match"] || h["if-modified-since"] || h["transfer-encoding"]) return fallback(req, res);
    const withBody = method !== "GET";
    if (
      withBody
        ? !plainJsonBody(h, bodyLimit)
        : h["content-length"] !== undefined && h["content-length"] !== "0"
    ) {
      return fallback(req, res);
    }
    const queryAt = url.indexOf("?");
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    for (const c of compiled) {
      if (c.method !== method || c.body !== withBody) continue;
      const params = match(c, path);
      if (!params) continue;
      trackRequest(logger, req, res);
      answer(c, params, req, res).catch((err: unknown) => {
        if (res.headersSent) return res.destroy();
        const error = toApiError(err, options.isUnavailable);
        logRequestFailure(logger, err, error, (req as { id?: unknown }).id);
        sendError(res, error, envelopeForPath(path));
      });
      return;
    }
    fallback(req, res);
  };
}
