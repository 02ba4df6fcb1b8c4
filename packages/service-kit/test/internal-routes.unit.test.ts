// mountInternal takes each route's path and credential check from its record: made-up records here, so
// the rules are seen apart from any service's routes.
import type { InternalRouteDef } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createApp,
  forwardedHeaders,
  INTERNAL_TOKEN_HEADER,
  internalHeaders,
  internalRoute,
  mountedInternalRoutes,
  mountInternal,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const SECRET = "internal-routes-secret-for-this-test";
const ADMIN = "an-operators-secret-of-forty-characters!";

const THING = {
  method: "GET",
  path: "/internal/things/:id",
  owner: "management",
  callers: ["gateway"],
} as const satisfies InternalRouteDef;
const SHARED = {
  method: "POST",
  path: "/internal/shared",
  owner: "management",
  callers: ["redirect", "analytics"],
} as const satisfies InternalRouteDef;
const OPERATE = {
  method: "PATCH",
  path: "/internal/admin/things",
  owner: "management",
  callers: ["admin"],
} as const satisfies InternalRouteDef;

const routes = [
  internalRoute(THING, (req, res) => void res.json({ id: req.params.id, caller: res.locals.caller })),
  internalRoute(SHARED, (_req, res) => void res.status(201).json({ caller: res.locals.caller })),
  internalRoute(OPERATE, (_req, res) => void res.json({ caller: res.locals.caller })),
];

let base = "";
let mounted: readonly InternalRouteDef[] = [];
beforeAll(async () => {
  const app = createApp({
    logger: captureLogger("internal-routes-test").logger,
    envelope: "auto",
    routes: (app) => mountInternal(app, routes, { internalToken: SECRET, adminToken: ADMIN }),
  });
  mounted = mountedInternalRoutes(app);
  ({ url: base } = await serve(app));
});

const send = async (method: string, path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, { method, headers });
  return { status: res.status, allow: res.headers.get("allow"), text: await res.text() };
};

describe("mountInternal", () => {
  it("answers each record's callers at its path, and remembers what it mounted", async () => {
    const thing = await send("GET", "/internal/things/a1", internalHeaders(SECRET, "gateway"));
    expect(thing).toMatchObject({ status: 200, text: '{"id":"a1","caller":"gateway"}' });
    for (const caller of ["redirect", "analytics"] as const) {
      expect((await send("POST", "/internal/shared", internalHeaders(SECRET, caller))).status).toBe(201);
    }
    expect((await send("PATCH", "/internal/admin/things", { "x-kurz-admin-token": ADMIN })).status).toBe(200);
    expect(mounted).toEqual([THING, SHARED, OPERATE]);
  });

  it("refuses other callers on the path and everything under it, whatever the method", async () => {
    for (const [method, path] of [
      ["GET", "/internal/things/a1"],
      ["POST", "/internal/things/a1"],
      ["GET", "/internal/things/a1/more"],
    ]) {
      for (const headers of [{}, internalHeaders(SECRET, "redirect"), { [INTERNAL_TOKEN_HEADER]: SECRET }]) {
        expect((await send(method!, path!, headers)).status, `${method} ${path}`).toBe(401);
      }
      const withIdentity = {
        ...internalHeaders(SECRET, "gateway"),
        ...forwardedHeaders(SECRET, { accountId: "a" }),
      };
      expect((await send(method!, path!, withIdentity)).status).toBe(403);
    }
    expect((await send("POST", "/internal/shared", internalHeaders(SECRET, "gateway"))).status).toBe(401);
  });

  it("answers the right caller 404 for another method or a longer path, and OPTIONS with the methods", async () => {
    const gateway = internalHeaders(SECRET, "gateway");
    expect((await send("POST", "/internal/things/a1", gateway)).status).toBe(404);
    expect((await send("GET", "/internal/things/a1/more", gateway)).status).toBe(404);
    expect(await send("OPTIONS", "/internal/things/a1", gateway)).toMatchObject({
      status: 200,
      allow: "GET, HEAD",
    });
    const admin = await send("OPTIONS", "/internal/admin/things", { "x-kurz-admin-token": ADMIN });
    expect(admin).toMatchObject({ status: 200, allow: "PATCH" });
  });

  it("closes every other /internal path to all but a service's caller credential", async () => {
    expect((await send("GET", "/internal/nothing-here")).status).toBe(401);
    expect((await send("GET", "/internal/nothing-here", { [INTERNAL_TOKEN_HEADER]: SECRET })).status).toBe(
      401,
    );
    expect((await send("GET", "/internal/nothing-here", internalHeaders(SECRET, "management"))).status).toBe(
      404,
    );
  });

  it("takes only the admin credential under the operators' prefix, and it opens nothing else", async () => {
    for (const path of ["/internal/admin/things", "/internal/admin/other"]) {
      for (const caller of ["gateway", "redirect", "analytics", "management"] as const) {
        const res = await send("PATCH", path, internalHeaders(SECRET, caller));
        expect(res.status, `${path} ${caller}`).toBe(403);
      }
      expect((await send("PATCH", path, { "x-kurz-admin-token": "a wrong one" })).status).toBe(401);
    }
    expect((await send("GET", "/internal/things/a1", { "x-kurz-admin-token": ADMIN })).status).toBe(401);
    // Past the operators' routes, the admin credential is no service's.
    expect((await send("PATCH", "/internal/admin/other", { "x-kurz-admin-token": ADMIN })).status).toBe(401);
  });

  it("refuses records that break its rules", () => {
    const app = createApp({ logger: captureLogger("internal-routes-test").logger, envelope: "auto" });
    const mount = (...defs: InternalRouteDef[]) =>
      mountInternal(
        app,
        defs.map((def) => internalRoute(def, (_req, res) => void res.end())),
        { internalToken: SECRET },
      );
    expect(() => mount(THING, THING)).toThrow(/twice/);
    expect(() => mount(THING, { ...THING, method: "POST", callers: ["redirect"] })).toThrow(
      /different callers/,
    );
    expect(() =>
      mount(THING, { ...THING, path: "/internal/things/:id/parts", callers: ["redirect"] }),
    ).toThrow(/lies under/);
    expect(() => mount({ ...OPERATE, path: "/internal/things" })).toThrow(/admin credential/);
    expect(() => mount({ ...THING, path: "/internal/admin/x" })).toThrow(/admin credential/);
  });
});
