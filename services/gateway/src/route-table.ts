// The public routes (contracts' API_ROUTES) as matchers, so a wrong method on a known path is answered
// 405 with `Allow` at the gateway, the same way for every upstream service.
import { API_ROUTES, type ApiRoute } from "@kurz/contracts";

interface CompiledRoute {
  pattern: RegExp;
  method: string;
}

function compile(route: ApiRoute): CompiledRoute {
  const source = route.path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // Express matches case-insensitively and tolerates one trailing slash; so does this.
  return { pattern: new RegExp(`^${source}/?$`, "i"), method: route.method };
}

export class RouteTable {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly ApiRoute[] = API_ROUTES) {
    this.routes = routes.map(compile);
  }

  /** The methods a path accepts (HEAD with GET), or null when no public route has this path. */
  allowedMethods(path: string): string[] | null {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) methods.add(route.method);
    if (methods.size === 0) return null;
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  }
}
