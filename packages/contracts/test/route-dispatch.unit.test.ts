import { describe, expect, it } from "vitest";
import {
  authenticatedPrefixes,
  createRouteDispatch,
  ROUTE_DEFS,
  type RouteDef,
  serviceOf,
} from "../src/index.ts";

const def = (path: string, auth: RouteDef["auth"], service?: RouteDef["service"]): RouteDef => ({
  method: "GET",
  path,
  tag: "links",
  summary: path,
  auth,
  status: 200,
  errors: [],
  ...(service ? { service } : {}),
});

describe("createRouteDispatch", () => {
  const dispatch = createRouteDispatch([
    def("/api/v1/auth/register", "public"),
    def("/api/v1/links/:id", "key"),
    def("/api/v1/stats", "key", "analytics"),
    def("/api/v1/stats/:id", "key", "analytics"),
    def("/api/v1/public/stats/:code", "public", "analytics"),
  ]);

  it("sends a path to the owner of the longest record prefix it lies under", () => {
    expect(dispatch("/api/v1/stats")).toEqual({ service: "analytics", auth: "key" });
    expect(dispatch("/api/v1/stats/7")).toEqual({ service: "analytics", auth: "key" });
    expect(dispatch("/api/v1/links/7")).toEqual({ service: "management", auth: "key" });
    // Paths no record names go to the owner of the prefix, which answers them 404 or 405.
    expect(dispatch("/api/v1/stats/7/more")).toEqual({ service: "analytics", auth: "key" });
    expect(dispatch("/api/v1/stats/")).toEqual({ service: "analytics", auth: "key" });
  });

  it("takes no credential only at a public record's own path, or below a public record's prefix", () => {
    expect(dispatch("/api/v1/auth/register")).toEqual({ service: "management", auth: "public" });
    expect(dispatch("/api/v1/auth/register/")).toEqual({ service: "management", auth: "public" });
    expect(dispatch("/api/v1/auth/register/more")).toEqual({ service: "management", auth: "key" });
    expect(dispatch("/api/v1/auth/register//")).toEqual({ service: "management", auth: "key" });
    expect(dispatch("/api/v1/public/stats")).toEqual({ service: "analytics", auth: "public" });
    expect(dispatch("/api/v1/public/stats/a/b")).toEqual({ service: "analytics", auth: "public" });
  });

  it("answers null for a path under no record's prefix", () => {
    expect(dispatch("/api/v1/public")).toBeNull();
    expect(dispatch("/api/v1/statsx")).toBeNull();
    expect(dispatch("/api")).toBeNull();
    expect(dispatch("/")).toBeNull();
  });

  it("refuses records that share a path but not an owner or credentials", () => {
    expect(() => createRouteDispatch([def("/api/x/:id", "key"), def("/api/x", "key", "analytics")])).toThrow(
      /both/,
    );
    expect(() => createRouteDispatch([def("/api/x", "key"), def("/api/x", "public")])).toThrow(/takes/);
  });

  it("routes every real record's own path to its service with its credentials", () => {
    const real = createRouteDispatch();
    for (const route of ROUTE_DEFS) {
      const path = route.path.replace(/:[^/]+/g, "x1").toLowerCase();
      const auth = route.auth === "public" ? "public" : expect.stringMatching(/^(key|session)$/);
      expect(real(path), route.path).toEqual({ service: serviceOf(route), auth });
    }
  });

  it("lists the prefixes where a service answers only authenticated callers, none nested", () => {
    expect(
      authenticatedPrefixes("analytics", [
        def("/api/v1/stats", "key", "analytics"),
        def("/api/v1/stats/:id", "key", "analytics"),
        def("/api/v1/stats/top/:id", "key", "analytics"),
        def("/api/v1/exports/stats", "key", "analytics"),
        def("/api/v1/public/stats/:code", "public", "analytics"),
        def("/api/v1/links/:id", "key"),
      ]),
    ).toEqual(["/api/v1/exports/stats", "/api/v1/stats"]);
  });
});
