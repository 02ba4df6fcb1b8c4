// Lives with the cross-service tests: it is the one test that reads two services' code (their routers), to hold
// them to the one route list in contracts.
// The OpenAPI document and the services agree: every route a service implements under /api is in
// contracts' API_ROUTES (hence in /api/v1/openapi.json), and every documented route is implemented.
// The services' Express routers are walked, so nothing is maintained by hand.
import { API_ROUTES, buildOpenApiDocument, toOpenApiPath } from "@kurz/contracts";
import { createLogger } from "@kurz/service-kit";
import type { Express } from "express";
import { describe, expect, it } from "vitest";
import { createAnalyticsApp } from "../../services/analytics/src/app.ts";
import { createManagementApp } from "../../services/management/src/app.ts";

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  rawPath?: string | string[];
  handle?: { stack?: Layer[] };
}

/** Every `METHOD /path` routed under /api by an Express app, with its routers' mount paths joined. */
function implementedRoutes(app: Express): string[] {
  const out: string[] = [];
  const join = (a: string, b: string) => (a + (b === "/" ? "" : b)).replace(/\/+$/, "") || "/";
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const path of [layer.route.path].flat()) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (on && method !== "_all") out.push(`${method.toUpperCase()} ${join(prefix, path)}`);
          }
        }
      } else if (layer.handle?.stack) {
        const mount = [layer.rawPath ?? "/"].flat()[0]!;
        walk(layer.handle.stack, join(prefix, mount));
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, "");
  return out.filter((r) => /^\S+ \/api(\/|$)/.test(r));
}

// Building an app only wires routers; no route runs, so dependencies are never touched. Any member
// read while wiring (other than the ones given) fails loudly instead of passing silently.
function wiringOnly<T>(given: Record<string, unknown>): T {
  const untouchable = new Proxy(
    {},
    {
      get(_t, member) {
        throw new Error(`route walk: a dependency's ${String(member)} was used while wiring routes`);
      },
    },
  );
  return new Proxy(given, { get: (t, member) => (member in t ? t[member as string] : untouchable) }) as T;
}

const common = {
  logger: createLogger("route-walk", "silent"),
  internalToken: "route-walk-token",
  baseUrl: "http://127.0.0.1:8080",
  readiness: {},
};
const implemented = new Map<string, string>();
for (const [service, app] of [
  ["management", createManagementApp(wiringOnly(common))],
  ["analytics", createAnalyticsApp(wiringOnly(common))],
] as const) {
  for (const route of implementedRoutes(app)) implemented.set(route, service);
}
const documented = API_ROUTES.map((r) => `${r.method} ${r.path}`);

describe("implemented routes and the OpenAPI document", () => {
  it("finds the routes of both services (the walk itself works)", () => {
    expect(implemented.get("GET /api/v1/account")).toBe("management");
    expect(implemented.get("GET /api/v1/analytics/:link_id")).toBe("analytics");
  });

  it.each([...implemented.keys()])("%s, implemented, is documented in API_ROUTES", (route) => {
    expect(documented).toContain(route);
  });

  it.each(documented)("%s, documented, is implemented", (route) => {
    expect([...implemented.keys()]).toContain(route);
  });

  it("puts every API route in the served OpenAPI document", () => {
    const doc = buildOpenApiDocument({ baseUrl: "http://127.0.0.1:8080" });
    for (const { method, path } of API_ROUTES) {
      expect(doc.paths?.[toOpenApiPath(path)], path).toHaveProperty(method.toLowerCase());
    }
  });
});
