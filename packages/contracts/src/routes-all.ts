// Every public route in one record, keyed by name (ROUTES.getLink), and the plain route list the
// gateway's 405 table and the tests read.
import { type ApiRoute, type RouteDef, V1_ROUTES } from "./routes.ts";
import { LEGACY_ROUTES } from "./routes-legacy.ts";
import { WEBHOOK_ROUTES } from "./webhooks.ts";

export const ROUTES = { ...V1_ROUTES, ...WEBHOOK_ROUTES, ...LEGACY_ROUTES } as const;
export type RouteKey = keyof typeof ROUTES;

/** Every route record, in declaration order. */
export const ROUTE_DEFS: readonly RouteDef[] = Object.freeze(Object.values(ROUTES));

/** Every route the public API serves (method, path, tag), for the gateway and the document. */
export const API_ROUTES: readonly ApiRoute[] = Object.freeze(
  ROUTE_DEFS.map(({ method, path, tag }) => Object.freeze({ method, path, tag })),
);
