// The one way a service calls another's internal API: by the route's record from contracts
// (INTERNAL_ROUTES), never by a path of its own, with the caller's credential on every call.
// It answers the raw Response: each caller decides what a 404 or a failure means to it (a cached
// miss, a 503), and parses the success with the record's `response` schema.
import type { InternalRouteDef, PathParams } from "@kurz/contracts";

export interface InternalCallOptions {
  /** Appended as a query string, in this order. */
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** The call is abandoned (fetch rejects) after this long. */
  timeoutMs: number;
}

export interface InternalClient {
  /** The route's path with `params` percent-encoded into their segments, and `query` appended. */
  pathOf<R extends InternalRouteDef>(
    route: R,
    params: PathParams<R["path"]>,
    query?: Record<string, string>,
  ): string;
  /** Calls `route`; rejects only when the service cannot be reached in time. */
  call<R extends InternalRouteDef>(
    route: R,
    params: PathParams<R["path"]>,
    options: InternalCallOptions,
  ): Promise<Response>;
}

const PARAM = /:([A-Za-z0-9_]+)/g;

/**
 * A client of the service at `baseUrl`, sending `headers` on every call: a caller credential
 * (`internalHeaders(secret, caller)`, or the bare token header where the caller sends no name).
 */
export function createInternalClient(baseUrl: string, headers: Record<string, string>): InternalClient {
  const base = baseUrl.replace(/\/+$/, "");
  const withBody = { ...headers, "content-type": "application/json" };
  const pathOf: InternalClient["pathOf"] = (route, params, query) => {
    const values = params as Record<string, string>;
    const path = route.path.replace(PARAM, (_, name: string) => encodeURIComponent(values[name]!));
    return query === undefined ? path : `${path}?${new URLSearchParams(query)}`;
  };
  return {
    pathOf,
    call: (route, params, options) =>
      fetch(`${base}${pathOf(route, params, options.query)}`, {
        method: route.method,
        headers: options.body === undefined ? headers : withBody,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      }),
  };
}
