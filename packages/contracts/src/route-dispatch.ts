// Which service answers a public API path, and what it asks of the caller, derived from the route
// records (their `service` and `auth`), so the gateway's routing and each service's guards cannot drift
// from the routes. A path is routed by its fixed prefix: a record's path up to its first parameter
// (`/api/v1/analytics/:link_id` → `/api/v1/analytics`). A path no record names still goes to the
// service owning the longest such prefix it lies under, which answers it (404, 405) in its own way.

import type { ApiService, RouteAuth, RouteDef } from "./routes.ts";
import { ROUTE_DEFS } from "./routes-all.ts";

export interface RouteDispatch {
  service: ApiService;
  /** "public": no credential; "key" and "session": the gateway authenticates the caller. */
  auth: RouteAuth;
}

interface Prefix {
  service: ApiService;
  /** The credentials of the parameterless records whose path is exactly this prefix. */
  exact?: RouteAuth;
  /** The credentials of the records with parameters below this prefix: every path under it takes them. */
  below?: RouteAuth;
}

/** The fixed part of a record's path (lower-cased: routes match without regard to case). */
export function fixedPrefix(def: RouteDef): string {
  const param = def.path.indexOf("/:");
  return (param === -1 ? def.path : def.path.slice(0, param)).toLowerCase();
}

export const serviceOf = (def: RouteDef): ApiService => def.service ?? "management";

function prefixesOf(defs: readonly RouteDef[]): Map<string, Prefix> {
  const prefixes = new Map<string, Prefix>();
  for (const def of defs) {
    const key = fixedPrefix(def);
    const entry = prefixes.get(key) ?? { service: serviceOf(def) };
    if (entry.service !== serviceOf(def)) {
      throw new Error(`route-dispatch: ${key} is both ${entry.service}'s and ${serviceOf(def)}'s`);
    }
    // The gateway decides on the path alone: every record sharing one must agree on credentials.
    const side = def.path.includes("/:") ? "below" : "exact";
    if (entry[side] !== undefined && entry[side] !== def.auth) {
      throw new Error(
        `route-dispatch: ${def.method} ${def.path} takes ${def.auth}, its neighbours ${entry[side]}`,
      );
    }
    entry[side] = def.auth;
    prefixes.set(key, entry);
  }
  return prefixes;
}

/**
 * The dispatcher of `defs`: for a lower-cased canonical path (query excluded), its owner and
 * credentials, or null when the path lies under no record's prefix. The owner is that of the longest
 * prefix the path lies under; the credentials are the record's that names the path (one trailing slash
 * ignored), else those of the records with parameters below that prefix, else a key.
 */
export function createRouteDispatch(defs: readonly RouteDef[] = ROUTE_DEFS) {
  const prefixes = prefixesOf(defs);
  return (path: string): RouteDispatch | null => {
    // At most one lookup per segment: no list of patterns walked per request.
    let candidate = path;
    while (candidate.length > 0) {
      const entry = prefixes.get(candidate);
      if (entry !== undefined) {
        const exact = path.length - candidate.length <= 1 ? entry.exact : undefined;
        return { service: entry.service, auth: exact ?? entry.below ?? "key" };
      }
      candidate = candidate.slice(0, candidate.lastIndexOf("/"));
    }
    return null;
  };
}

/**
 * The prefixes under which `service` answers only callers the gateway authenticated (its records that
 * are not public), none below another: where the service mounts its check of the gateway's credential.
 */
export function authenticatedPrefixes(service: ApiService, defs: readonly RouteDef[] = ROUTE_DEFS): string[] {
  const own = [
    ...new Set(defs.filter((d) => serviceOf(d) === service && d.auth !== "public").map(fixedPrefix)),
  ].sort();
  return own.filter((p) => !own.some((q) => q !== p && p.startsWith(`${q}/`)));
}
