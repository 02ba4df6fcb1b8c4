import { API_ROUTES } from "@kurz/contracts";
import { describe, expect, it } from "vitest";
import { RouteTable } from "../src/route-table.ts";

describe("RouteTable", () => {
  const table = new RouteTable([
    { method: "POST", path: "/api/v1/links", tag: "links" },
    { method: "GET", path: "/api/v1/links", tag: "links" },
    { method: "GET", path: "/api/v1/links/:id", tag: "links" },
    { method: "DELETE", path: "/api/v1/links/:id", tag: "links" },
    { method: "POST", path: "/api/v1/links/bulk", tag: "links" },
    { method: "PUT", path: "/api/domain/:id/update", tag: "legacy" },
  ]);

  it("lists the methods of every route matching a path, HEAD with GET", () => {
    expect(table.allowedMethods("/api/v1/links")?.sort()).toEqual(["GET", "HEAD", "POST"]);
    // "bulk" is also a value of :id, so both routes' methods apply.
    expect(table.allowedMethods("/api/v1/links/bulk")?.sort()).toEqual(["DELETE", "GET", "HEAD", "POST"]);
    expect(table.allowedMethods("/api/domain/7/update")).toEqual(["PUT"]);
  });

  it("matches like Express: case-insensitive, one trailing slash", () => {
    expect(table.allowedMethods("/API/V1/Links/")?.sort()).toEqual(["GET", "HEAD", "POST"]);
  });

  it("answers null for paths no route has", () => {
    expect(table.allowedMethods("/api/v1/nothing")).toBeNull();
    expect(table.allowedMethods("/api/v1/links/a/b")).toBeNull();
    expect(table.allowedMethods("/api/v1/links//")).toBeNull();
    expect(table.allowedMethods("/api/domain//update")).toBeNull();
    expect(table.allowedMethods("/api/v1")).toBeNull();
    expect(table.allowedMethods("/")).toBeNull();
  });

  it("names the record answering a request by its path template, for metrics' labels", () => {
    expect(table.recordOf("GET", "/api/v1/links/lnk_123")).toBe("/api/v1/links/:id");
    expect(table.recordOf("HEAD", "/api/v1/links/")).toBe("/api/v1/links");
    expect(table.recordOf("POST", "/api/v1/links/bulk")).toBe("/api/v1/links/bulk");
    // A method no record of the path has (a 405): still the path's record, never the raw path.
    expect(table.recordOf("PATCH", "/api/domain/7/update")).toBe("/api/domain/:id/update");
    expect(table.recordOf("GET", "/api/v1/nothing/here")).toBeNull();
  });

  it("finds every route of the real table at its own path, whatever the segment count", () => {
    const real = new RouteTable();
    for (const route of API_ROUTES) {
      const path = route.path.replace(/:[^/]+/g, "x1");
      expect(real.allowedMethods(path), route.path).toContain(route.method);
      expect(real.allowedMethods(`${path}/`), route.path).toContain(route.method);
      expect(real.recordOf(route.method, path), route.path).toMatch(/^\/api\//);
    }
  });
});
