// The gateway in front of the real stack: authentication errors, the v1 and legacy envelopes for every
// kind of failure (unknown route, wrong method, malformed JSON, oversized body, wrong content type),
// the rate-limit headers, the OpenAPI document and the docs page.
import { createHash } from "node:crypto";
import { apiKeyCacheKey } from "@kurz/contracts";
import { useStack } from "@kurz/testing/use-stack";
import { beforeAll, describe, expect, it } from "vitest";

interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
  body: any;
}

describe("gateway", () => {
  const bed = useStack({ inProcess: true, extraEnv: { LEGACY_RATE_LIMIT_PER_MINUTE: "100000" } });
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    const account = await bed.stack.createAccount(`gateway-${process.pid}-${Date.now()}@example.com`);
    key = account.api_key;
    keyId = (await bed.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.account_id } })).id;
  });

  async function call(
    method: string,
    path: string,
    opts: { auth?: string | null; body?: string | Buffer; type?: string } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = {};
    const auth = opts.auth === undefined ? `Bearer ${key}` : opts.auth;
    if (auth !== null) headers.authorization = auth;
    if (opts.type) headers["content-type"] = opts.type;
    const res = await fetch(`${bed.stack.origin}${path}`, { method, headers, body: opts.body });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body };
  }

  function expectV1Error(res: Reply, status: number, code: string) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe("string");
    expect(res.body.error.message.length).toBeGreaterThan(0);
  }
  function expectLegacyError(res: Reply, status: number) {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ error: 1, message: expect.any(String) });
  }
  const expectRateHeaders = (res: Reply) => {
    expect(res.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(res.headers.get("x-ratelimit-reset")).toMatch(/^\d+$/);
  };

  describe("authentication", () => {
    it.each([
      ["no Authorization header", null],
      ["an empty header", ""],
      ["another scheme", `Basic ${Buffer.from("a:b").toString("base64")}`],
      ["Bearer without a key", "Bearer "],
      ["two tokens", "Bearer kurz_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa extra"],
      ["a key of the wrong shape", "Bearer kurz_live_short"],
      ["a key with a foreign prefix", "Bearer sk_live_0123456789ABCDEFGHIJKLMNOPQRSTUV"],
      ["an unknown key", "Bearer kurz_live_0123456789ABCDEFGHIJKLMNOPQRSTUV"],
    ])(
      "refuses %s with 401 UNAUTHORIZED, reporting the client's failed-authentication budget",
      async (_label, auth) => {
        const res = await call("GET", "/api/v1/account", { auth });
        expectV1Error(res, 401, "UNAUTHORIZED");
        // No key to report on: the headers are the per-client budget for failed authentications (default 30).
        expectRateHeaders(res);
        expect(res.headers.get("x-ratelimit-limit")).toBe("30");
      },
    );

    it("accepts the scheme in any case", async () => {
      expect((await call("GET", "/api/v1/account", { auth: `bearer ${key}` })).status).toBe(200);
    });

    it("answers the legacy envelope on the older API", async () => {
      expectLegacyError(await call("GET", "/api/account", { auth: null }), 401);
      expectLegacyError(await call("GET", "/api/account", { auth: "Bearer nope" }), 401);
    });

    it("never trusts identity headers sent by a client", async () => {
      const res = await fetch(`${bed.stack.origin}/api/v1/account`, {
        headers: {
          "x-kurz-internal-token": bed.stack.env.INTERNAL_TOKEN!,
          "x-kurz-account-id": "00000000-0000-4000-8000-000000000000",
        },
      });
      expect(res.status).toBe(401);
    });

    it("refuses an expired key with KEY_EXPIRED and a revoked one with KEY_REVOKED", async () => {
      const make = async (name: string, data: { expiresAt?: Date; revokedAt?: Date }) => {
        const raw = `kurz_live_${createHash("sha256").update(name).digest("hex").slice(0, 32)}`;
        await bed.prisma.apiKey.create({
          data: {
            accountId: (await bed.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } })).accountId,
            name,
            keyHash: createHash("sha256").update(raw).digest("hex"),
            keyPrefix: raw.slice(0, 14),
            ...data,
          },
        });
        return raw;
      };
      const expired = await make(`expired-${Date.now()}`, { expiresAt: new Date(Date.now() - 1000) });
      const revoked = await make(`revoked-${Date.now()}`, { revokedAt: new Date() });
      expectV1Error(await call("GET", "/api/v1/account", { auth: `Bearer ${expired}` }), 401, "KEY_EXPIRED");
      expectV1Error(await call("GET", "/api/v1/account", { auth: `Bearer ${revoked}` }), 401, "KEY_REVOKED");
      expectLegacyError(await call("GET", "/api/account", { auth: `Bearer ${expired}` }), 401);
    });

    it("caches key lookups in Redis under the key's hash, never the key itself", async () => {
      await call("GET", "/api/v1/account");
      const cached = await bed.redis.get(apiKeyCacheKey(createHash("sha256").update(key).digest("hex")));
      expect(JSON.parse(cached!)).toMatchObject({ key_id: keyId, revoked: false });
      expect(cached).not.toContain(key);
    });
  });

  describe("envelopes and rate-limit headers on every answer", () => {
    it("answers an unknown route with 404 in the v1 envelope", async () => {
      for (const path of ["/api/v1/nothing-here", "/api/v1", "/api/v1/links/a/b/c"]) {
        const res = await call("GET", path);
        expectV1Error(res, 404, "NOT_FOUND");
        expectRateHeaders(res);
      }
    });

    it("answers an unknown route with 404 in the legacy envelope under /api", async () => {
      const res = await call("GET", "/api/nothing-here");
      expectLegacyError(res, 404);
      expectRateHeaders(res);
    });

    it("answers a wrong method on a known route with 405 and Allow", async () => {
      const put = await call("PUT", "/api/v1/links");
      expectV1Error(put, 405, "METHOD_NOT_ALLOWED");
      expect(put.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
      expectRateHeaders(put);
      const patch = await call("PATCH", "/api/v1/analytics/summary");
      expectV1Error(patch, 405, "METHOD_NOT_ALLOWED");
      expect(patch.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD"]);
      const legacy = await call("POST", "/api/account");
      expectLegacyError(legacy, 405);
      expect(legacy.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD"]);
    });

    it("answers malformed JSON with 400 VALIDATION_ERROR", async () => {
      const res = await call("POST", "/api/v1/links", {
        body: '{"url": "https://exa',
        type: "application/json",
      });
      expectV1Error(res, 400, "VALIDATION_ERROR");
      expectRateHeaders(res);
      expectLegacyError(await call("POST", "/api/domain/add", { body: "{", type: "application/json" }), 400);
    });

    it("answers a body that is not JSON with 415 UNSUPPORTED_MEDIA_TYPE", async () => {
      const res = await call("POST", "/api/v1/links", {
        body: "url=https://example.com",
        type: "text/plain",
      });
      expectV1Error(res, 415, "UNSUPPORTED_MEDIA_TYPE");
      expectRateHeaders(res);
      const form = await call("POST", "/api/v1/account/keys", {
        body: "name=x",
        type: "application/x-www-form-urlencoded",
      });
      expectV1Error(form, 415, "UNSUPPORTED_MEDIA_TYPE");
    });

    it("answers a body over 1 MB with 413 PAYLOAD_TOO_LARGE, declared or streamed", async () => {
      const big = JSON.stringify({ url: "https://example.com/", title: "x".repeat(1024 * 1024) });
      const declared = await call("POST", "/api/v1/links", { body: big, type: "application/json" });
      expectV1Error(declared, 413, "PAYLOAD_TOO_LARGE");
      expectRateHeaders(declared);
      // Without Content-Length the gateway cannot know; the service stops reading at the same limit.
      const chunks = new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      });
      const streamed = await fetch(`${bed.stack.origin}/api/v1/links`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: chunks,
        duplex: "half",
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
      expectLegacyError(await call("POST", "/api/domain/add", { body: big, type: "application/json" }), 413);
    });

    it("passes a body just under the limit through", async () => {
      const body = JSON.stringify({ name: "x", pad: "y".repeat(1000 * 1000) });
      expect((await call("POST", "/api/v1/account/keys", { body, type: "application/json" })).status).toBe(
        201,
      );
    });
  });

  describe("documentation", () => {
    it("serves the OpenAPI 3.1 document without a key", async () => {
      const res = await call("GET", "/api/v1/openapi.json", { auth: null });
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe("3.1.0");
      expect(res.body.servers).toEqual([{ url: bed.stack.origin }]);
      expect(res.body.paths["/api/v1/account/keys/{id}"]).toHaveProperty("delete");
      expectV1Error(await call("POST", "/api/v1/openapi.json", { auth: null }), 405, "METHOD_NOT_ALLOWED");
    });

    it("serves the docs page and its assets from the gateway itself", async () => {
      const page = await fetch(`${bed.stack.origin}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain("/api/v1/openapi.json");
      // Everything the page loads is local: no third-party origin.
      const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      expect(sources.length).toBeGreaterThan(2);
      for (const src of sources) expect(src.startsWith("/")).toBe(true);
      for (const src of sources) {
        const asset = await fetch(`${bed.stack.origin}${src}`);
        expect(asset.status, src).toBe(200);
        expect((await asset.arrayBuffer()).byteLength, src).toBeGreaterThan(100);
      }
      const init = await (await fetch(`${bed.stack.origin}/docs/init.js`)).text();
      expect(init).toContain("/api/v1/openapi.json");
      expect((await fetch(`${bed.stack.origin}/docs/assets/index.html`)).status).toBe(404);
    });
  });
});
