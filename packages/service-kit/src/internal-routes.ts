// Serves contracts' INTERNAL_ROUTES: each handler is mounted on its record, at the record's path and
// behind the credential check the record names, so a path or a list of callers is written once, in
// contracts, for the side that calls and the side that answers.
import {
  INTERNAL_ADMIN_PREFIX,
  INTERNAL_PREFIX,
  type InternalCaller,
  type InternalRouteDef,
  type PathParams,
} from "@kurz/contracts";
import { type Express, type RequestHandler, Router } from "express";
import { CALLERS, requireAdmin, requireCaller } from "./internal-auth.ts";
import { bySpecificity } from "./routes.ts";

/** A record with the handlers that answer it (Express middleware, run after the credential check). */
export interface InternalRoute<R extends InternalRouteDef = InternalRouteDef> {
  def: R;
  handlers: readonly RequestHandler[];
}

/** `handlers` answer `def`; `req.params` holds the parameters its path names. */
export function internalRoute<R extends InternalRouteDef>(
  def: R,
  ...handlers: RequestHandler<PathParams<R["path"]>>[]
): InternalRoute<R> {
  return { def, handlers: handlers as unknown as RequestHandler[] };
}

export interface InternalCredentials {
  /** INTERNAL_TOKEN, the secret the services' caller credentials derive from. */
  internalToken: string;
  /** ADMIN_TOKEN; absent, the routes that take it answer 403 (they are off). */
  adminToken?: string | undefined;
}

type Mountable = Express | Router;
const mounted = new WeakMap<Mountable, InternalRouteDef[]>();

/** The records mountInternal put on this app or router, in mounting order. */
export function mountedInternalRoutes(app: Mountable): readonly InternalRouteDef[] {
  return mounted.get(app) ?? [];
}

const takesAdmin = (def: InternalRouteDef): boolean => def.callers.includes("admin" as never);
const underAdminPrefix = (path: string): boolean =>
  path.toLowerCase().startsWith(`${INTERNAL_ADMIN_PREFIX}/`);

/**
 * Mounts each route at its record's path behind the record's credential check, so a wrong credential
 * is refused (401/403) before a wrong method or a longer path is (404):
 * - the operators' routes (under INTERNAL_ADMIN_PREFIX, and only they) behind requireAdmin, which
 *   guards that whole prefix: a caller credential opens nothing there;
 * - then a guard on all of INTERNAL_PREFIX that takes any service's caller credential, so any path
 *   past it, a route mounted later without a record included, is closed to users and to requests
 *   carrying a user's identity;
 * - then the services' routes, each path and everything under it behind requireCaller with the
 *   record's callers (so a record's path may not lie under another's that names other callers).
 * Each kind lives in a router of its own, which answers OPTIONS on a route's path with its methods
 * (`Allow`) once the credential check has passed.
 */
export function mountInternal(
  app: Mountable,
  routes: readonly InternalRoute[],
  credentials: InternalCredentials,
): void {
  const byPath = groupByPath(routes);
  const paths = [...byPath.keys()].sort(bySpecificity);
  const adminPaths = paths.filter((path) => takesAdmin(byPath.get(path)![0]!.def));
  if (adminPaths.length > 0) {
    const operators = Router();
    operators.use(INTERNAL_ADMIN_PREFIX, requireAdmin(credentials.adminToken, credentials.internalToken));
    for (const path of adminPaths) mountPath(operators, path, byPath.get(path)!);
    app.use(operators);
  }
  const services = Router();
  services.use(INTERNAL_PREFIX, requireCaller(credentials.internalToken, [...CALLERS]));
  for (const path of paths.filter((p) => !adminPaths.includes(p))) {
    const onPath = byPath.get(path)!;
    const callers = onPath[0]!.def.callers as readonly InternalCaller[];
    services.use(path, requireCaller(credentials.internalToken, [...callers]));
    mountPath(services, path, onPath);
  }
  app.use(services);
  mounted.set(app, [...(mounted.get(app) ?? []), ...routes.map((r) => r.def)]);
}

/**
 * The routes by path. A method is served once per path, all of a path's methods take the same
 * credentials, and the operators' routes are exactly those under INTERNAL_ADMIN_PREFIX.
 */
function groupByPath(routes: readonly InternalRoute[]): Map<string, InternalRoute[]> {
  const byPath = new Map<string, InternalRoute[]>();
  for (const route of routes) {
    const { path, method, callers } = route.def;
    const same = byPath.get(path) ?? [];
    if (same.some((r) => r.def.method === method)) throw new Error(`mountInternal: ${method} ${path} twice`);
    if (same.some((r) => r.def.callers.join() !== callers.join())) {
      throw new Error(`mountInternal: ${path} names different callers for different methods`);
    }
    if (takesAdmin(route.def) !== underAdminPrefix(path)) {
      throw new Error(
        `mountInternal: ${path}: the admin credential is taken under ${INTERNAL_ADMIN_PREFIX}/ only`,
      );
    }
    byPath.set(path, [...same, route]);
  }
  const callersOf = (path: string) => byPath.get(path)![0]!.def.callers.join();
  for (const outer of byPath.keys()) {
    for (const inner of byPath.keys()) {
      if (inner !== outer && isUnder(inner, outer) && callersOf(inner) !== callersOf(outer)) {
        throw new Error(`mountInternal: ${inner} lies under ${outer}, whose check names other callers`);
      }
    }
  }
  return byPath;
}

/** True when every request for `inner` also matches `outer` as a prefix (a parameter matches any segment). */
function isUnder(inner: string, outer: string): boolean {
  const ins = inner.toLowerCase().split("/");
  const outs = outer.toLowerCase().split("/");
  return ins.length > outs.length && outs.every((seg, i) => seg.startsWith(":") || seg === ins[i]);
}

function mountPath(router: Router, path: string, onPath: readonly InternalRoute[]) {
  for (const { def, handlers } of onPath) {
    router[def.method.toLowerCase() as "get" | "post" | "patch"](path, ...handlers);
  }
}
