// Single-machine mode (docs/decisions/0006): the redirect service owns the public port, so following a
// short link costs no Node hop, and the few paths that belong to the API side (`/api`, the docs page,
// campaign pages under `/c/`) are piped to the gateway. Plain node:http with a keep-alive agent: the
// body streams through untouched and the gateway does the API checks. Paths two readers could take
// differently (dot segments, encoded slashes, backslashes, NUL; see service-kit's canonical-path) are
// refused here already, so nothing ambiguous crosses this hop. In the scaled setup an edge proxy does
// this routing instead and API_UPSTREAM_URL stays unset.
import type { IncomingMessage, ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER, isV1ApiPath } from "@kurz/contracts";
import {
  canonicalPath,
  createForwarder,
  envelopeForPath,
  sendError,
  sendPathRefusal,
  serviceUnavailable,
} from "@kurz/service-kit";

export { isApiPath } from "@kurz/service-kit";

/**
 * The dashboard's paths, which the gateway serves from services/web/dist: `/` and the app's
 * pages, all reserved aliases (packages/contracts reserved-aliases.ts), so no short code is shadowed.
 * Forwarded on the public host only: a branded domain's `/` is its redirect_root and its other paths
 * are its own (serve-route.ts).
 */
export function isWebAppPath(url: string): boolean {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  return (
    path === "/" ||
    path === "/login" ||
    path === "/signup" ||
    path === "/dashboard" ||
    path.startsWith("/dashboard/") ||
    path.startsWith("/stats/") ||
    path.startsWith("/assets/")
  );
}

function unavailable(_err: Error, req: IncomingMessage, res: ServerResponse): void {
  res.setHeader("retry-after", "1");
  const path = (req.url ?? "/").split("?", 1)[0]!;
  if (isV1ApiPath(path)) res.setHeader(API_VERSION_HEADER, API_VERSION);
  sendError(res, serviceUnavailable("Service temporarily unavailable"), envelopeForPath(path));
}

/**
 * Sets the X-RateLimit-* headers of a refused API path, as the gateway would have (they are on every
 * response); see reportAuthFailureBudget in service-kit. Never throws.
 */
export type RefusalBudget = (req: IncomingMessage, res: ServerResponse, ip: string | null) => Promise<void>;

export function createApiForwarder(
  upstreamUrl: string,
  clientIp: (req: IncomingMessage) => string | null,
  refusalBudget?: RefusalBudget,
) {
  const upstream = new URL(upstreamUrl);
  const forwarder = createForwarder({ onError: unavailable });

  return function forward(req: IncomingMessage, res: ServerResponse): void {
    const canonical = canonicalPath(req.url);
    if (!canonical.ok) {
      if (!refusalBudget || !/^\/api(?:[/%?]|$)/i.test(req.url ?? "")) {
        sendPathRefusal(req, res, canonical.reason);
        return;
      }
      void refusalBudget(req, res, clientIp(req)).finally(() => sendPathRefusal(req, res, canonical.reason));
      return;
    }
    const headers = { ...req.headers };
    const ip = clientIp(req);
    const prior = headers["x-forwarded-for"];
    if (ip) headers["x-forwarded-for"] = prior ? `${prior}, ${ip}` : ip;
    headers["x-forwarded-proto"] ??= "http";
    if (req.headers.host) headers["x-forwarded-host"] ??= req.headers.host;
    forwarder(req, res, { target: upstream, path: canonical.url, headers });
  };
}
