import { createHmac } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CALLERS,
  callerToken,
  createApp,
  forwardedHeaders,
  forwardToken,
  internalHeaders,
  requireCaller,
  requireForwarded,
  requireIdentity,
} from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const SECRET = "internal-secret-for-this-test";
let base = "";

beforeAll(async () => {
  const { logger } = captureLogger("internal-auth-test");
  const app = createApp({
    logger,
    envelope: "auto",
    routes: (app) => {
      app.get("/internal/keys/:hash", requireCaller(SECRET, ["gateway"]), (_req, res) => {
        res.json({ caller: res.locals.caller, identity: res.locals.identity });
      });
      app.get("/internal/links/:code", requireCaller(SECRET, ["redirect", "analytics"]), (_req, res) => {
        res.json({ caller: res.locals.caller });
      });
      app.use("/api", requireForwarded(SECRET));
      app.get(["/api/v1/whoami", "/api/whoami"], (_req, res) => {
        res.json({ identity: res.locals.identity });
      });
      app.get("/api/v1/account", (_req, res) => {
        res.json(requireIdentity(res));
      });
    },
  });
  ({ url: base } = await serve(app));
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

describe("derived credentials", () => {
  it("derives one hex HMAC-SHA256 per caller and one for forwarding, none equal to the secret", () => {
    const hmac = (label: string) => createHmac("sha256", SECRET).update(label).digest("hex");
    expect(callerToken(SECRET, "redirect")).toBe(hmac("kurz-internal:redirect"));
    expect(forwardToken(SECRET)).toBe(hmac("kurz-forward"));
    const all = [...CALLERS.map((c) => callerToken(SECRET, c)), forwardToken(SECRET), SECRET];
    expect(new Set(all).size).toBe(all.length);
    expect(callerToken("another-secret", "redirect")).not.toBe(callerToken(SECRET, "redirect"));
    expect(internalHeaders(SECRET, "gateway")).toEqual({
      "x-kurz-internal-token": callerToken(SECRET, "gateway"),
      "x-kurz-caller": "gateway",
    });
  });

  it("refuses an empty secret", () => {
    expect(() => callerToken("", "gateway")).toThrow(/must not be empty/);
    expect(() => requireCaller("", ["gateway"])).toThrow(/must not be empty/);
    expect(() => requireForwarded("")).toThrow(/must not be empty/);
  });
});

describe("requireCaller", () => {
  it("lets in only the listed callers", async () => {
    const ok = await get("/internal/keys/abc", internalHeaders(SECRET, "gateway"));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ caller: "gateway", identity: { accountId: null, keyId: null } });
    expect(await (await get("/internal/links/x", internalHeaders(SECRET, "analytics"))).json()).toEqual({
      caller: "analytics",
    });
    for (const caller of ["redirect", "analytics", "management"] as const) {
      const res = await get("/internal/keys/abc", internalHeaders(SECRET, caller));
      expect(res.status, caller).toBe(401);
    }
  });

  it("refuses the raw secret, the forwarding credential, another secret's token and nothing at all", async () => {
    for (const token of [SECRET, forwardToken(SECRET), callerToken("other", "gateway"), "x", ""]) {
      const res = await get("/internal/keys/abc", token ? { "x-kurz-internal-token": token } : {});
      expect(res.status, token).toBe(401);
      expect(await res.json()).toEqual({
        success: false,
        error: { code: "UNAUTHORIZED", message: "Missing or invalid internal credential" },
      });
    }
  });

  it("refuses any request that carries end-user identity or the forwarding credential, even with a valid caller", async () => {
    const valid = internalHeaders(SECRET, "gateway");
    for (const extra of [
      { "x-kurz-account-id": "acc-1" },
      { "x-kurz-key-id": "key-1" },
      { "x-kurz-account-id": "" },
      forwardedHeaders(SECRET),
      forwardedHeaders(SECRET, { accountId: "acc-1", keyId: "key-1" }),
    ]) {
      const res = await get("/internal/keys/abc", { ...valid, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("FORBIDDEN");
    }
  });
});

describe("requireForwarded", () => {
  it("puts the identity headers on res.locals.identity with the forwarding credential", async () => {
    const res = await get("/api/v1/whoami", forwardedHeaders(SECRET, { accountId: "acc-1", keyId: "key-9" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ identity: { accountId: "acc-1", keyId: "key-9", scopes: [] } });
  });

  it("refuses caller credentials, the raw secret and identity headers alone", async () => {
    const identity = { "x-kurz-account-id": "acc-1" };
    for (const headers of [
      identity,
      { ...identity, "x-kurz-internal-token": SECRET },
      { ...identity, "x-kurz-forward-token": SECRET },
      { ...identity, ...internalHeaders(SECRET, "gateway") },
      { ...identity, "x-kurz-forward-token": forwardToken("another-secret") },
    ]) {
      const res = await get("/api/v1/whoami", headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    }
  });

  it("answers in the legacy envelope on legacy paths", async () => {
    const res = await get("/api/whoami");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 1, message: "Missing or invalid internal token" });
  });

  it("requireIdentity returns the account, or 401 when the gateway forwarded none", async () => {
    const withAccount = await get("/api/v1/account", forwardedHeaders(SECRET, { accountId: "acc-2" }));
    expect(await withAccount.json()).toEqual({ accountId: "acc-2", keyId: null, sessionId: null });
    const withSession = await get(
      "/api/v1/account",
      forwardedHeaders(SECRET, { accountId: "acc-2", sessionId: "ses-1" }),
    );
    expect(await withSession.json()).toEqual({ accountId: "acc-2", keyId: null, sessionId: "ses-1" });
    expect((await get("/api/v1/account", forwardedHeaders(SECRET))).status).toBe(401);
  });
});
