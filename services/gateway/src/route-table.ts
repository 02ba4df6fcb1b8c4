// The public routes (contracts' API_ROUTES) as matchers, so a wrong method on a known path is answered
// 405 with `Allow` at the gateway, the same way for every upstream service.
import { API_ROUTES, type ApiRoute } from "@kurz/contracts";

interface CompiledRoute {
  pattern: RegExp;
  method: string;
  /** The record's path template (`/api/v1/links/:id`). */
  path: string;
}

function compile(route: ApiRoute): CompiledRoute {
  const source = route.path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // Express matches case-insensitively and tolerates one trailing slash; so does this.
  return { pattern: new RegExp(`^${source}/?$`, "i"), method: route.method, path: route.path };
}

/** Segments of a path, one trailing slash ignored: a route can only match paths with as many as its own. */
const segmentCount = (path: string) => {
  let count = 0;
  const end = path.length > 1 && path.endsWith("/") ? path.length - 1 : path.length;
  for (let i = 0; i < end; i++) if (path.charCodeAt(i) === 47) count++; // "/"
  return count;
};

export class RouteTable {
  /** Routes by segment count: every API request is screened, and testing all ~70 patterns was waste. */
  private readonly routes = new Map<number, CompiledRoute[]>();

  constructor(routes: readonly ApiRoute[] = API_ROUTES) {
    for (const route of routes) {
      const n = segmentCount(route.path);
      const bucket = this.routes.get(n) ?? [];
      bucket.push(compile(route));
      this.routes.set(n, bucket);
    }
  }

  /** The methods a path accepts (HEAD with GET), or null when no public route has this path. */
  allowedMethods(path: string): string[] | null {
    const methods = new Set<string>();
    for (const route of this.routes.get(segmentCount(path)) ?? []) {
      if (route.pattern.test(path)) methods.add(route.method);
    }
    if (methods.size === 0) return null;
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  }

  /**
   * The path template of the record answering `method` on `path` (HEAD as GET), else of any record with
   * this path (a 405), else null: a metric's label, bounded by the records.
   */
  recordOf(method: string, path: string): string | null {
    const wanted = method === "HEAD" ? "GET" : method;
    let any: string | null = null;
    for (const route of this.routes.get(segmentCount(path)) ?? []) {
      if (!route.pattern.test(path)) continue;
      if (route.method === wanted) return route.path;
      any ??= route.path;
    }
    return any;
  }
}
