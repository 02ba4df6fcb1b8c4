import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  conflict,
  createApp,
  installErrorHandlers,
  methodNotAllowed,
  serviceUnavailable,
  v1Success,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const captured = captureLogger("http-test");
let base = "";

beforeAll(async () => {
  const app = createApp({
    logger: captured.logger,
    envelope: "auto",
    routes: (app) => {
      app.post("/api/v1/echo", (req, res) => {
        res.json(v1Success(req.body ?? null));
      });
      app.post("/api/echo", (req, res) => {
        res.json({ error: 0, data: req.body ?? null });
      });
      app.get("/api/v1/boom", () => {
        throw new Error("secret internal detail");
      });
      app.get("/api/boom", async () => {
        throw new Error("async secret detail");
      });
      app.get("/api/v1/zod", () => {
        z.object({ url: z.url() }).parse({ url: "not a url" });
      });
      app.get("/api/v1/not-configured", () => {
        throw serviceUnavailable("E-mail is not configured on this server");
      });
      app.get("/api/v1/conflict", () => {
        throw conflict("Custom alias already taken");
      });
      app
        .route("/api/v1/only-get")
        .get((_req, res) => {
          res.json(v1Success("ok"));
        })
        .all(methodNotAllowed(["GET"]));
    },
  });
  ({ url: base } = await serve(app));
});

const postJson = (path: string, body: string, contentType = "application/json") =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": contentType }, body });

describe("createApp", () => {
  it("parses JSON bodies", async () => {
    const res = await postJson("/api/v1/echo", JSON.stringify({ a: 1 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: { a: 1 } });
  });

  it("lets a POST without a body through", async () => {
    const res = await fetch(`${base}/api/v1/echo`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, data: null });
  });

  it("answers malformed JSON with 400 VALIDATION_ERROR (v1) and error 1 (legacy)", async () => {
    const v1 = await postJson("/api/v1/echo", "{not json");
    expect(v1.status).toBe(400);
    expect(await v1.json()).toEqual({
      success: false,
      error: { code: "VALIDATION_ERROR", message: "Malformed JSON in request body" },
    });
    const legacy = await postJson("/api/echo", "{not json");
    expect(legacy.status).toBe(400);
    expect(await legacy.json()).toEqual({ error: 1, message: "Malformed JSON in request body" });
  });

  it("answers a body over 1 MB with 413", async () => {
    const big = JSON.stringify({ blob: "x".repeat(1024 * 1024) });
    const v1 = await postJson("/api/v1/echo", big);
    expect(v1.status).toBe(413);
    expect(await v1.json()).toMatchObject({ success: false, error: { code: "PAYLOAD_TOO_LARGE" } });
    const legacy = await postJson("/api/echo", big);
    expect(legacy.status).toBe(413);
    expect(await legacy.json()).toMatchObject({ error: 1 });
  });

  it("answers a non-JSON body with 415", async () => {
    const v1 = await postJson("/api/v1/echo", "a=1", "application/x-www-form-urlencoded");
    expect(v1.status).toBe(415);
    expect(await v1.json()).toEqual({
      success: false,
      error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "Request body must be application/json" },
    });
    const legacy = await postJson("/api/echo", "hello", "text/plain");
    expect(legacy.status).toBe(415);
    expect(await legacy.json()).toEqual({ error: 1, message: "Request body must be application/json" });
  });

  it("answers unknown routes with 404 in the envelope of the path", async () => {
    for (const path of ["/api/v1/nothing", "/nothing", "/api/v1"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: "NOT_FOUND", message: "Route not found" },
      });
    }
    const legacy = await fetch(`${base}/api/nothing`);
    expect(legacy.status).toBe(404);
    expect(await legacy.json()).toEqual({ error: 1, message: "Route not found" });
  });

  it("answers an ApiError with its status and code", async () => {
    const res = await fetch(`${base}/api/v1/conflict`);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: "CONFLICT", message: "Custom alias already taken" },
    });
  });

  it("answers a thrown zod error with 400 and the field tree", async () => {
    const res = await fetch(`${base}/api/v1/zod`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; details: unknown } };
    expect(body.error.code).toBe("VALIDATION_ERROR");
    expect(body.error.details).toEqual({ _errors: [], url: { _errors: [expect.any(String)] } });
  });

  it("answers unexpected errors with a bare 500 and logs the stack", async () => {
    const res = await fetch(`${base}/api/v1/boom`, { headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      success: false,
      error: { code: "INTERNAL_ERROR", message: "Internal server error" },
    });
    expect(text).not.toMatch(/secret|stack|at /);

    const legacy = await fetch(`${base}/api/boom`);
    expect(legacy.status).toBe(500);
    expect(await legacy.json()).toEqual({ error: 1, message: "Internal server error" });

    const logged = captured.lines().find((l) => l.msg === "request failed" && l.reqId === "boom-1");
    expect(logged?.level).toBe("error");
    expect((logged?.err as { stack?: string } | undefined)?.stack).toContain("secret internal detail");
  });

  it("logs a 503 the code meant (a feature not configured) as a refusal at warn, with its reason", async () => {
    const res = await fetch(`${base}/api/v1/not-configured`, { headers: { "x-request-id": "refused-1" } });
    expect(res.status).toBe(503);
    const logged = captured.lines().find((l) => l.reqId === "refused-1" && l.msg !== "request completed");
    expect(logged).toMatchObject({ level: "warn", msg: "request refused" });
    expect(logged?.reason).toBe("E-mail is not configured on this server");
  });

  it("answers a disallowed method with 405 and an Allow header", async () => {
    const res = await fetch(`${base}/api/v1/only-get`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(await res.json()).toMatchObject({ success: false, error: { code: "METHOD_NOT_ALLOWED" } });
  });

  it("keeps a well-formed incoming request id and makes one otherwise", async () => {
    const kept = await fetch(`${base}/api/v1/only-get`, { headers: { "x-request-id": "abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("abc-123");
    const made = await fetch(`${base}/api/v1/only-get`);
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await fetch(`${base}/api/v1/only-get`, { headers: { "x-request-id": "x".repeat(300) } });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("writes an access log line per request without client address or credentials", async () => {
    await fetch(`${base}/api/v1/only-get`, {
      headers: {
        "x-request-id": "access-1",
        authorization: "Bearer kurz_live_supersecretkey",
        "x-forwarded-for": "203.0.113.9",
        cookie: "session=abc",
      },
    });
    const line = captured.lines().find((l) => (l.req as { id?: string } | undefined)?.id === "access-1");
    expect(line).toMatchObject({
      level: "info",
      service: "http-test",
      req: { method: "GET", url: "/api/v1/only-get" },
      res: { statusCode: 200 },
    });
    const raw = captured.raw();
    expect(raw).not.toContain("supersecretkey");
    expect(raw).not.toContain("203.0.113.9");
    expect(raw).not.toContain("session=abc");
    expect(raw).not.toContain("127.0.0.1");
    expect(raw).not.toContain("remoteAddress");
  });
});

describe("installErrorHandlers", () => {
  it("lets a service add routes first, then install the final handlers", async () => {
    const { logger } = captureLogger("late-routes");
    const app = createApp({ logger, envelope: "legacy" });
    app.get("/api/v1/added-later", (_req, res) => {
      res.json({ error: 0, added: true });
    });
    installErrorHandlers(app, { logger, envelope: "legacy" });
    const { url } = await serve(app);

    expect(await (await fetch(`${url}/api/v1/added-later`)).json()).toEqual({ error: 0, added: true });
    const missing = await fetch(`${url}/api/v1/missing`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 1, message: "Route not found" });
  });
});
