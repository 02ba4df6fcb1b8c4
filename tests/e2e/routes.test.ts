// Lives with the cross-service tests: it builds two services' apps, to hold them to the one route list in
// contracts (docs/decisions/0010-routes-declared-once.md). Each service mounts records
// from contracts' ROUTES with service-kit's mountRoutes, which remembers what it mounted; the gateway's
// 405 table and the OpenAPI document are derived from the same records. So the only way left to drift
// is a record no service mounts, or one mounted twice: that is what this checks.
import {
  API_ROUTES,
  buildOpenApiDocument,
  ROUTE_DEFS,
  ROUTES,
  type RouteDef,
  toOpenApiPath,
} from "@kurz/contracts";
import { createLogger, mountedRoutes } from "@kurz/service-kit";
import { describe, expect, it } from "vitest";
import { createAnalyticsApp } from "../../services/analytics/src/app.ts";
import { RouteTable } from "../../services/gateway/src/route-table.ts";
import { createManagementApp } from "../../services/management/src/app.ts";
import { wiringOnly } from "./wiring-only.ts";

const common = {
  logger: createLogger("route-check", "silent"),
  internalToken: "route-check-token",
  baseUrl: "http://127.0.0.1:8080",
  readiness: {},
};
const services = {
  management: mountedRoutes(createManagementApp(wiringOnly(common))),
  analytics: mountedRoutes(createAnalyticsApp(wiringOnly(common))),
};
const name = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const keyOf = new Map<RouteDef, string>(Object.entries(ROUTES).map(([key, def]) => [def, key]));

describe("every route record is served exactly once", () => {
  it("finds routes in both services (mountRoutes records what it mounts)", () => {
    expect(services.management).toContain(ROUTES.getLink);
    expect(services.management).toContain(ROUTES.legacyListDomains);
    expect(services.analytics).toContain(ROUTES.getLinkAnalytics);
  });

  it.each(ROUTE_DEFS.map((def) => [keyOf.get(def), name(def), def] as const))(
    "%s (%s) is mounted by exactly one service",
    (_key, _name, def) => {
      const mountedBy = Object.entries(services).filter(([, defs]) => defs.includes(def));
      expect(mountedBy.map(([service]) => service)).toHaveLength(1);
    },
  );

  it("mounts nothing under /api that is not a record of contracts' ROUTES", () => {
    const strays = Object.values(services)
      .flat()
      .filter((def) => !keyOf.has(def));
    expect(strays.map(name)).toEqual([]);
  });

  it("puts every record in the OpenAPI document and the gateway's 405 table", () => {
    const doc = buildOpenApiDocument({ baseUrl: common.baseUrl });
    const table = new RouteTable();
    expect(API_ROUTES.map(name)).toEqual(ROUTE_DEFS.map(name));
    for (const def of ROUTE_DEFS) {
      expect(doc.paths?.[toOpenApiPath(def.path)], def.path).toHaveProperty(def.method.toLowerCase());
      const sample = def.path.replace(/:[A-Za-z_]+/g, "x");
      expect(table.allowedMethods(sample), sample).toContain(def.method);
    }
  });
});
