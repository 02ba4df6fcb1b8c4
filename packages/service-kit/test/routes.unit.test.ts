import { defineRoute, SCOPES, successEnvelope } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createApp,
  forwardedHeaders,
  installErrorHandlers,
  mountedRoutes,
  mountRoutes,
  notFound,
  requireForwarded,
  responseValidationFrom,
  route,
  v1Success,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const SECRET = "routes-test-secret";
const ACCOUNT = "0b7e6f1a-5a55-4c4e-9d5e-3f1f3b1e2a10";
const asCaller = { ...forwardedHeaders(SECRET, { accountId: ACCOUNT, keyId: "key-1", scopes: SCOPES }) };

const Item = z.object({ id: z.uuid(), name: z.string(), count: z.int() });

// Records shaped like contracts' ROUTES, small enough to read in one screen.
const R = {
  getItem: defineRoute({
    method: "GET",
    path: "/api/v1/items/:id",
    tag: "links",
    summary: "Get item",
    auth: "key",
    params: z.object({ id: z.uuid() }),
    query: z.object({ count: z.coerce.number().int().default(1) }),
    status: 200,
    response: successEnvelope(Item),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  createItem: defineRoute({
    method: "POST",
    path: "/api/v1/items",
    tag: "links",
    summary: "Create item",
    auth: "key",
    body: z.strictObject({ name: z.string().min(1) }),
    rejectBody: (raw) =>
      typeof raw === "object" && raw !== null && "id" in raw ? "id cannot be chosen" : undefined,
    status: 201,
    response: successEnvelope(Item),
    errors: ["VALIDATION_ERROR", "BAD_REQUEST"],
  }),
  // Fixed segment at the same depth as :id: must win whatever the mounting order.
  itemStats: defineRoute({
    method: "GET",
    path: "/api/v1/items/stats",
    tag: "links",
    summary: "Stats",
    auth: "key",
    status: 200,
    response: successEnvelope(z.object({ items: z.int() })),
    errors: [],
  }),
  batch: defineRoute({
    method: "POST",
    path: "/api/v1/items/batch",
    tag: "links",
    summary: "Batch",
    auth: "key",
    body: z.object({ names: z.array(z.string().min(1)) }),
    bodyParser: z.object({ names: z.array(z.unknown()) }),
    status: 200,
    response: successEnvelope(z.object({ received: z.int() })),
    errors: ["VALIDATION_ERROR"],
  }),
  publicItem: defineRoute({
    method: "GET",
    path: "/api/v1/public/items/:code",
    tag: "links",
    summary: "Public item",
    auth: "public",
    params: z.object({ code: z.string().regex(/^[a-z]+$/) }),
    invalidParams: { code: "NOT_FOUND", message: "Item not found" },
    status: 200,
    response: successEnvelope(z.object({ code: z.string(), identity: z.null() })),
    errors: ["NOT_FOUND"],
  }),
  drifting: defineRoute({
    method: "GET",
    path: "/api/v1/drift",
    tag: "links",
    summary: "Answers something else than declared",
    auth: "public",
    status: 200,
    response: successEnvelope(Item),
    errors: [],
  }),
  image: defineRoute({
    method: "GET",
    path: "/api/v1/image/:kind",
    tag: "qr",
    summary: "Raw body",
    auth: "public",
    params: z.object({ kind: z.enum(["svg", "text"]) }),
    status: 200,
    produces: ["image/svg+xml"],
    errors: ["VALIDATION_ERROR"],
  }),
  legacyThing: defineRoute({
    method: "PUT",
    path: "/api/thing/:id/update",
    tag: "legacy",
    summary: "Legacy",
    auth: "key",
    params: z.object({ id: z.coerce.number().int().positive() }),
    status: 200,
    response: z.object({ error: z.literal(0), message: z.string() }),
    errors: ["VALIDATION_ERROR"],
  }),
} as const;

const seen: { input?: unknown } = {};

const routes = [
  route(R.getItem, ({ params, query, identity }) => {
    seen.input = { params, query, identity };
    if (params.id === "00000000-0000-4000-8000-000000000000") throw notFound("Item not found");
    return v1Success({ id: params.id, name: "one", count: query.count });
  }),
  route(R.createItem, async ({ body }) => ({
    success: true as const,
    data: { id: ACCOUNT, name: body.name, count: 0 },
  })),
  route(R.itemStats, () => v1Success({ items: 3 })),
  route(R.batch, ({ body }) => v1Success({ received: body.names.length })),
  route(R.publicItem, ({ params, identity }) => v1Success({ code: params.code, identity })),
  // The cast stands for a handler whose types drifted from the record at run time (e.g. a DB value).
  route(R.drifting, () => v1Success({ id: "not-a-uuid", name: "x", count: 1 }) as never),
  route(R.image, ({ params }) =>
    params.kind === "svg"
      ? { contentType: "image/svg+xml", body: "<svg/>", headers: { "Cache-Control": "max-age=60" } }
      : { contentType: "text/plain", body: "nope" },
  ),
  route(R.legacyThing, ({ params }) => ({ error: 0 as const, message: `updated ${params.id}` })),
];

const captured = captureLogger("routes-test");
let base = "";
let unchecked = "";

function appWith(validateResponses: boolean) {
  const app = createApp({ logger: captured.logger, envelope: "auto" });
  app.use("/api/v1/items", requireForwarded(SECRET));
  app.use("/api/thing", requireForwarded(SECRET));
  mountRoutes(app, routes, { validateResponses, logger: captured.logger });
  installErrorHandlers(app, { logger: captured.logger, envelope: "auto" });
  return app;
}

beforeAll(async () => {
  ({ url: base } = await serve(appWith(true)));
  ({ url: unchecked } = await serve(appWith(false)));
});

const send = (path: string, init: RequestInit = {}, origin = base) =>
  fetch(origin + path, { ...init, headers: { ...asCaller, ...(init.headers as Record<string, string>) } });
// biome-ignore lint/suspicious/noExplicitAny: assertions below check the shape
const read = async (res: Response): Promise<any> => res.json();
const json = (body: unknown): RequestInit => ({
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

describe("mountRoutes: input", () => {
  it("hands the handler parsed params, query (with defaults) and the forwarded identity", async () => {
    const res = await send(`/api/v1/items/${ACCOUNT}?count=7`);
    expect(res.status).toBe(200);
    expect(await read(res)).toEqual({ success: true, data: { id: ACCOUNT, name: "one", count: 7 } });
    expect(seen.input).toEqual({
      params: { id: ACCOUNT },
      query: { count: 7 },
      identity: {
        accountId: ACCOUNT,
        keyId: "key-1",
        sessionId: null,
        userId: null,
        scopes: SCOPES,
        role: null,
      },
    });
    await send(`/api/v1/items/${ACCOUNT}`);
    expect(seen.input).toMatchObject({ query: { count: 1 } });
  });

  it("answers a bad path parameter with VALIDATION_ERROR naming it", async () => {
    const res = await send("/api/v1/items/not-a-uuid");
    expect(res.status).toBe(400);
    const body = await read(res);
    expect(body.success).toBe(false);
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.message).toMatch(/^Invalid request: id: /);
    expect(body.error.details).toBeDefined();
  });

  it("answers a bad query with VALIDATION_ERROR", async () => {
    const res = await send(`/api/v1/items/${ACCOUNT}?count=1.5`);
    expect(res.status).toBe(400);
    expect((await read(res)).error.code).toBe("VALIDATION_ERROR");
  });

  it("parses the body, uses the record's status, and refuses unknown members", async () => {
    const created = await send("/api/v1/items", { method: "POST", ...json({ name: "a" }) });
    expect(created.status).toBe(201);
    expect((await read(created)).data.name).toBe("a");

    const extra = await send("/api/v1/items", { method: "POST", ...json({ name: "a", colour: "red" }) });
    expect(extra.status).toBe(400);
    expect((await read(extra)).error.code).toBe("VALIDATION_ERROR");
  });

  it("answers a missing body with VALIDATION_ERROR", async () => {
    const res = await send("/api/v1/items", { method: "POST" });
    expect(res.status).toBe(400);
    expect((await read(res)).error.code).toBe("VALIDATION_ERROR");
  });

  it("runs rejectBody before the schema: its message is a 400 BAD_REQUEST", async () => {
    const res = await send("/api/v1/items", { method: "POST", ...json({ id: "x", colour: "red" }) });
    expect(res.status).toBe(400);
    expect((await read(res)).error).toEqual({ code: "BAD_REQUEST", message: "id cannot be chosen" });
  });

  it("keeps createApp's malformed JSON and 415 answers", async () => {
    const malformed = await send("/api/v1/items", {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect((await read(malformed)).error).toEqual({
      code: "VALIDATION_ERROR",
      message: "Malformed JSON in request body",
    });
    const form = await send("/api/v1/items", {
      method: "POST",
      body: "name=a",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
  });

  it("parses with bodyParser when given, leaving item rules to the handler", async () => {
    const res = await send("/api/v1/items/batch", { method: "POST", ...json({ names: ["", 3] }) });
    expect(res.status).toBe(200);
    expect((await read(res)).data).toEqual({ received: 2 });
    const malformed = await send("/api/v1/items/batch", { method: "POST", ...json({ names: "a" }) });
    expect(malformed.status).toBe(400);
  });

  it("answers invalidParams' error instead of VALIDATION_ERROR when the record says so", async () => {
    const res = await fetch(`${base}/api/v1/public/items/NOT-VALID`);
    expect(res.status).toBe(404);
    expect((await read(res)).error).toEqual({ code: "NOT_FOUND", message: "Item not found" });
  });

  it("gives a public route a null identity and no forwarding requirement", async () => {
    const res = await fetch(`${base}/api/v1/public/items/abc`);
    expect(res.status).toBe(200);
    expect((await read(res)).data).toEqual({ code: "abc", identity: null });
  });

  it("answers a key route without an account 401, in the path's envelope", async () => {
    const res = await fetch(`${base}/api/v1/items/${ACCOUNT}`, {
      headers: forwardedHeaders(SECRET, {}),
    });
    expect(res.status).toBe(401);
    expect((await read(res)).error.code).toBe("UNAUTHORIZED");

    const legacy = await fetch(`${base}/api/thing/1/update`, {
      method: "PUT",
      headers: forwardedHeaders(SECRET, {}),
    });
    expect(legacy.status).toBe(401);
    expect(await read(legacy)).toEqual({ error: 1, message: "No account identity on this request" });
  });

  it("answers legacy validation failures in the legacy envelope", async () => {
    const ok = await send("/api/thing/12/update", { method: "PUT" });
    expect(await read(ok)).toEqual({ error: 0, message: "updated 12" });
    const bad = await send("/api/thing/zero/update", { method: "PUT" });
    expect(bad.status).toBe(400);
    const body = await read(bad);
    expect(body.error).toBe(1);
    expect(body.message).toMatch(/^Invalid request: id: /);
  });

  it("passes handler errors to the error handler", async () => {
    const res = await send("/api/v1/items/00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect((await read(res)).error).toEqual({ code: "NOT_FOUND", message: "Item not found" });
  });
});

describe("mountRoutes: paths and methods", () => {
  it("prefers a fixed segment over a parameter at the same depth", async () => {
    const res = await send("/api/v1/items/stats");
    expect(res.status).toBe(200);
    expect((await read(res)).data).toEqual({ items: 3 });
  });

  it("answers other methods on a known path 405 with Allow (HEAD with GET)", async () => {
    const res = await send(`/api/v1/items/${ACCOUNT}`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await read(res)).error.code).toBe("METHOD_NOT_ALLOWED");

    const collection = await send("/api/v1/items", { method: "GET" });
    expect(collection.status).toBe(405);
    expect(collection.headers.get("allow")).toBe("POST");
  });

  it("answers HEAD on a GET route", async () => {
    const res = await send(`/api/v1/items/${ACCOUNT}`, { method: "HEAD" });
    expect(res.status).toBe(200);
  });

  it("records what it mounted, and refuses the same method and path twice", () => {
    const app = createApp({ logger: captured.logger, envelope: "auto" });
    mountRoutes(app, routes.slice(0, 2), { validateResponses: false });
    mountRoutes(app, routes.slice(2, 3), { validateResponses: false });
    expect(mountedRoutes(app)).toEqual([R.getItem, R.createItem, R.itemStats]);
    expect(mountedRoutes(createApp({ logger: captured.logger, envelope: "auto" }))).toEqual([]);
    expect(() => mountRoutes(app, [routes[0]!, routes[0]!])).toThrow(/GET \/api\/v1\/items\/:id twice/);
  });
});

describe("mountRoutes: responses", () => {
  it("answers 500 and logs the issues when a response breaks its schema", async () => {
    const res = await fetch(`${base}/api/v1/drift`);
    expect(res.status).toBe(500);
    expect((await read(res)).error.code).toBe("INTERNAL_ERROR");
    const line = captured.lines().find((l) => l.msg === "response does not match route schema");
    expect(line).toMatchObject({ route: "GET /api/v1/drift" });
    expect(JSON.stringify(line?.issues)).toContain("id");
  });

  it("sends the response unchecked when validation is off", async () => {
    const res = await fetch(`${unchecked}/api/v1/drift`);
    expect(res.status).toBe(200);
    expect((await read(res)).data.id).toBe("not-a-uuid");
  });

  it("sends a raw reply as it is, with its headers", async () => {
    const res = await fetch(`${base}/api/v1/image/svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get("cache-control")).toBe("max-age=60");
    expect(await res.text()).toBe("<svg/>");
  });

  it("refuses a raw reply whose media type the record does not declare", async () => {
    const res = await fetch(`${base}/api/v1/image/text`);
    expect(res.status).toBe(500);
    const off = await fetch(`${unchecked}/api/v1/image/text`);
    expect(off.status).toBe(200);
    expect(await off.text()).toBe("nope");
  });
});

describe("responseValidationFrom", () => {
  it.each([
    [{}, true],
    [{ NODE_ENV: "development" }, true],
    [{ NODE_ENV: "test" }, true],
    [{ NODE_ENV: "production" }, false],
    [{ NODE_ENV: "production", VALIDATE_RESPONSES: "true" }, true],
    [{ NODE_ENV: "test", VALIDATE_RESPONSES: "false" }, false],
  ])("%o → %s", (env, expected) => {
    expect(responseValidationFrom(env)).toBe(expected);
  });

  it("refuses a value it does not understand", () => {
    expect(() => responseValidationFrom({ VALIDATE_RESPONSES: "maybe" })).toThrow(/VALIDATE_RESPONSES/);
  });
});
