import { beforeAll, describe, expect, it } from "vitest";
import { createApp, requireIdentity, requireInternal } from "../src/index.ts";
import { captureLogger, serve } from "./helpers.ts";

const TOKEN = "internal-token-for-this-test";
let base = "";

beforeAll(async () => {
  const { logger } = captureLogger("internal-auth-test");
  const app = createApp({
    logger,
    envelope: "auto",
    routes: (app) => {
      app.use(requireInternal(TOKEN));
      app.get(["/internal/whoami", "/api/whoami"], (_req, res) => {
        res.json({ identity: res.locals.identity });
      });
      app.get("/internal/account", (_req, res) => {
        res.json(requireIdentity(res));
      });
    },
  });
  ({ url: base } = await serve(app));
});

describe("requireInternal", () => {
  it("refuses a request without the token, ignoring its identity headers", async () => {
    const res = await fetch(`${base}/internal/whoami`, { headers: { "x-kurz-account-id": "acc-1" } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      success: false,
      error: { code: "UNAUTHORIZED", message: "Missing or invalid internal token" },
    });
  });

  it("refuses a wrong token of any length", async () => {
    for (const token of ["x", TOKEN.replace(/.$/, "X"), `${TOKEN}-longer`]) {
      const res = await fetch(`${base}/internal/whoami`, { headers: { "x-kurz-internal-token": token } });
      expect(res.status).toBe(401);
    }
  });

  it("answers in the legacy envelope on legacy paths", async () => {
    const res = await fetch(`${base}/api/whoami`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 1, message: "Missing or invalid internal token" });
  });

  it("puts the identity headers on res.locals.identity with the right token", async () => {
    const res = await fetch(`${base}/internal/whoami`, {
      headers: { "x-kurz-internal-token": TOKEN, "x-kurz-account-id": "acc-1", "x-kurz-key-id": "key-9" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ identity: { accountId: "acc-1", keyId: "key-9" } });
  });

  it("gives null identity fields on a call made on nobody's behalf", async () => {
    const res = await fetch(`${base}/internal/whoami`, { headers: { "x-kurz-internal-token": TOKEN } });
    expect(await res.json()).toEqual({ identity: { accountId: null, keyId: null } });
  });

  it("requireIdentity returns the account, or 401 when the call carries none", async () => {
    const withAccount = await fetch(`${base}/internal/account`, {
      headers: { "x-kurz-internal-token": TOKEN, "x-kurz-account-id": "acc-2" },
    });
    expect(await withAccount.json()).toEqual({ accountId: "acc-2", keyId: null });
    const without = await fetch(`${base}/internal/account`, { headers: { "x-kurz-internal-token": TOKEN } });
    expect(without.status).toBe(401);
  });

  it("cannot be configured with an empty token", () => {
    expect(() => requireInternal("")).toThrow(/must not be empty/);
  });
});
