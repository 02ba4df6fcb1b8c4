// Holds the services' apps to the internal API's records (contracts' INTERNAL_ROUTES), as routes.test.ts
// does for the public API. Each service mounts its internal handlers with service-kit's mountInternal,
// which takes the path and the credential check from the record; what is left to drift is a record its
// service does not serve, or an `/internal` path served without a record. This walks each app's Express
// router stack to find everything mounted under `/internal`, so a route added by hand is found too.
import {
  INTERNAL_ADMIN_PREFIX,
  INTERNAL_PREFIX,
  INTERNAL_ROUTES,
  type InternalRouteDef,
} from "@kurz/contracts";
import { createLogger, mountedInternalRoutes } from "@kurz/service-kit";
import express, { type Express, type RequestHandler } from "express";
import { describe, expect, it } from "vitest";
import { createAnalyticsApp } from "../../services/analytics/src/app.ts";
import { createManagementApp } from "../../services/management/src/app.ts";
import { wiringOnly } from "./wiring-only.ts";

const common = {
  logger: createLogger("internal-route-check", "silent"),
  internalToken: "internal-route-check-token",
  baseUrl: "http://127.0.0.1:8080",
  readiness: {},
};
const apps: Record<string, Express> = {
  management: createManagementApp(wiringOnly(common)),
  analytics: createAnalyticsApp(wiringOnly(common)),
};

/** What an Express 5 router stack holds, as far as this check reads it. */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

const underInternal = (path: string) => /^\/internal(\/|$)/i.test(path);
const join = (prefix: string, path: string) => (path === "/" ? prefix || "/" : `${prefix}${path}`);

/**
 * Everything mounted under `/internal`, following nested routers: a route as `METHOD path` (one entry
 * per method), any other middleware as `use path`. A path that is not a string is reported as such:
 * it cannot be compared with a record.
 */
function internalLayers(stack: readonly Layer[], prefix = ""): string[] {
  return stack.flatMap((layer): string[] => {
    const paths = [layer.route ? layer.route.path : layer.rawPath].flat();
    if (paths.some((p) => typeof p !== "string"))
      return [`a path that is not a string under ${prefix || "/"}`];
    const full = (paths as string[]).map((p) => join(prefix, p));
    if (layer.route) {
      const methods = Object.keys(layer.route.methods).filter((m) => m !== "_all");
      return full.filter(underInternal).flatMap((p) => methods.map((m) => `${m.toUpperCase()} ${p}`));
    }
    if (Array.isArray(layer.handle?.stack))
      return full.flatMap((p) => internalLayers(layer.handle!.stack!, p === "/" ? "" : p));
    return full.filter(underInternal).map((p) => `use ${p}`);
  });
}

const stackOf = (app: Express) => (app as unknown as { router: { stack: Layer[] } }).router.stack;
const name = (r: InternalRouteDef) => `${r.method} ${r.path}`;
const records = Object.entries(INTERNAL_ROUTES) as [string, InternalRouteDef][];
const ownedBy = (service: string) => records.filter(([, def]) => def.owner === service).map(([, def]) => def);

describe("the internal API is served from its records", () => {
  it("has an app here for every service that owns a record", () => {
    expect(records.length).toBeGreaterThan(0);
    for (const [key, def] of records) expect(Object.keys(apps), key).toContain(def.owner);
  });

  it.each(Object.entries(apps))(
    "%s serves each record it owns once, and no other /internal path",
    (service, app) => {
      const owned = ownedBy(service);
      const layers = internalLayers(stackOf(app));
      const routes = layers.filter((l) => !l.startsWith("use "));
      expect(routes.sort()).toEqual(owned.map(name).sort());
      expect([...mountedInternalRoutes(app)].sort((a, b) => name(a).localeCompare(name(b)))).toEqual(
        [...owned].sort((a, b) => name(a).localeCompare(name(b))),
      );
      // Middleware under /internal is mountInternal's credential checks only: on all of /internal, on the
      // operators' prefix, and on each record's path.
      const guards = new Set([INTERNAL_PREFIX, INTERNAL_ADMIN_PREFIX, ...owned.map((def) => def.path)]);
      const others = layers.filter((l) => l.startsWith("use ") && !guards.has(l.slice("use ".length)));
      expect(others).toEqual([]);
    },
  );

  it("finds what mountInternal mounted (the walk reaches into its routers)", () => {
    const layers = internalLayers(stackOf(apps.management!));
    expect(layers).toContain(name(INTERNAL_ROUTES.getKey));
    expect(layers).toContain(`use ${INTERNAL_ROUTES.getKey.path}`);
    expect(layers).toContain(`use ${INTERNAL_ADMIN_PREFIX}`);
  });

  it("would find an /internal route or middleware added by hand, at any depth", () => {
    const answer: RequestHandler = (_req, res) => void res.end();
    const app = express();
    const nested = express.Router();
    nested.get("/x", answer);
    app.use(nested);
    app.use("/internal/y", nested);
    app.post("/Internal/z", answer);
    app.use("/internal/w", answer);
    app.get("/api/v1/links", answer);
    expect(internalLayers(stackOf(app)).sort()).toEqual([
      "GET /internal/y/x",
      "POST /Internal/z",
      "use /internal/w",
    ]);
  });
});
