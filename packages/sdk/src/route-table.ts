// The runtime side of the routes: what a call needs to build its request, one entry per record of
// @kurz/contracts' ROUTES (so a new route is callable without an edit here). The build (build.ts)
// replaces this module with the table it computes, as plain data.
import { ROUTES } from "@kurz/contracts";
import type { RouteInfo } from "./route-info.ts";

/**
 * A list is paginated when its query takes `page` (v1 answers `meta`, the legacy API `data.nextpage`)
 * or `cursor` (the answer's `data.next_cursor`).
 */
function pagination(route: { path: string; query?: unknown }): RouteInfo["pagination"] {
  const shape = (route.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  if (shape && "cursor" in shape) return "cursor";
  if (!shape || !("page" in shape)) return undefined;
  return route.path.startsWith("/api/v1/") ? "v1" : "legacy";
}

export const ROUTE_TABLE: Readonly<Record<keyof typeof ROUTES, RouteInfo>> = Object.fromEntries(
  Object.entries(ROUTES).map(([name, route]) => {
    const info: RouteInfo = {
      method: route.method,
      path: route.path,
      json: "response" in route && route.response !== undefined,
      ...("consumes" in route && route.consumes ? { consumes: [...route.consumes] } : {}),
      ...(pagination(route) ? { pagination: pagination(route) } : {}),
    };
    return [name, info];
  }),
) as Record<keyof typeof ROUTES, RouteInfo>;
