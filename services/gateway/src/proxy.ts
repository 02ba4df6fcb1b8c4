// Forwards requests to the owning service, exactly at the path the gateway routed (the canonical
// path computed once per request, see app.ts), with the identity the gateway established.
// Every x-kurz-* header from the client is stripped first: only the gateway may assert them, and
// the forwarding credential goes only with a user's request (docs/security.md).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { createForwarder as createHttpForwarder, forwardedHeaders, type Identity } from "@kurz/service-kit";

/**
 * The client's headers without its x-kurz-* (only the gateway asserts those; `keep` names one that may
 * pass), and the socket's peer appended to X-Forwarded-For. Built in one pass: deleting from a copy
 * cost more.
 */
export function clientHeaders(req: IncomingMessage, keep?: string): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  const incoming = req.headers;
  for (const name in incoming) {
    if (!name.startsWith("x-kurz-") || name === keep) headers[name] = incoming[name];
  }
  const peer = req.socket.remoteAddress;
  if (peer) {
    const prior = headers["x-forwarded-for"];
    headers["x-forwarded-for"] = prior ? `${prior}, ${peer}` : peer;
  }
  return headers;
}

export function createForwarder(opts: {
  /** The INTERNAL_TOKEN secret; the forwarding credential is derived from it. */
  internalSecret: string;
  onError: (err: Error, req: IncomingMessage, res: ServerResponse) => void;
}) {
  const http = createHttpForwarder({ onError: opts.onError, timeoutMs: 30_000 });
  // The upstreams are a handful of configured origins: each is parsed once, not on every request.
  const origins = new Map<string, URL>();
  const originOf = (target: string) => {
    let url = origins.get(target);
    if (url === undefined) {
      url = new URL(target);
      origins.set(target, url);
    }
    return url;
  };

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: string,
    path: string,
    /** Who the gateway established (none on anonymous paths); public routes send only the client hash. */
    identity?: Partial<Identity>,
  ): void {
    const headers = clientHeaders(req);
    if (identity) Object.assign(headers, forwardedHeaders(opts.internalSecret, identity));
    headers["x-forwarded-proto"] ??= "http";
    if (req.headers.host) headers["x-forwarded-host"] ??= req.headers.host;
    http(req, res, { target: originOf(target), path, headers });
  }
  return Object.assign(forward, { close: () => http.close() });
}
