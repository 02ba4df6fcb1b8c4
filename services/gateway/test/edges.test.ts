// The gateway in-process in front of recording upstreams: it routes on one canonical path and forwards
// exactly that path; client x-kurz-* headers never pass; only a user's request carries the forwarding
// credential; failed authentications are budgeted per client (docs/security.md).
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { callerToken, createLogger, forwardToken, unauthorized } from "@kurz/service-kit";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApiKeys } from "../src/api-keys.ts";
import { createGatewayApp } from "../src/app.ts";
import { loadGatewayConfig } from "../src/config.ts";
import type { KeyUsageRecorder } from "../src/key-usage.ts";
import { RateLimiter } from "../src/rate-limit.ts";
import { Sessions } from "../src/sessions.ts";
import { keyRecord } from "./key-record.ts";

const SECRET = "edges-test-secret";
const GOOD_KEY = `kurz_live_${"G".repeat(32)}`;
const FAILURE_LIMIT = 5;
const record = keyRecord({ rate_limit_per_minute: 10_000, rate_limit_per_hour: 100_000 });

interface Seen {
  service: string;
  url: string;
  headers: IncomingHttpHeaders;
}
const seen: Seen[] = [];
const servers: Server[] = [];
let lookups = 0;
let gateway = "";
let redis: Redis;
const prefix = uniquePrefix("gw-edges");

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const upstream = (service: string) =>
  listen(
    createServer((req, res) => {
      seen.push({ service, url: req.url ?? "", headers: req.headers });
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ service, url: req.url }));
      });
    }),
  );

beforeAll(async () => {
  await ensureRedis();
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  const [management, analytics, redirect] = await Promise.all([
    upstream("management"),
    upstream("analytics"),
    upstream("redirect"),
  ]);
  const config = loadGatewayConfig({
    INTERNAL_TOKEN: SECRET,
    MANAGEMENT_URL: management,
    ANALYTICS_URL: analytics,
    REDIRECT_URL: redirect,
    TRUST_PROXY: "1",
    AUTH_FAILURE_LIMIT_PER_MINUTE: String(FAILURE_LIMIT),
  });
  const keys = {
    // As ApiKeys does for a key its cache lacks: management is asked only once the client's
    // failed-authentication budget is known to be left (`lookups` counts those questions).
    authenticate: async (
      authorization: string | undefined,
      _now?: number,
      beforeManagement?: Promise<unknown>,
    ) => {
      await beforeManagement;
      lookups++;
      if (authorization === `Bearer ${GOOD_KEY}`) return record;
      throw unauthorized("Invalid API key");
    },
  } as unknown as ApiKeys;
  const app = createGatewayApp({
    config,
    logger: createLogger("gateway-edges-test", "silent"),
    keys,
    sessions: new Sessions(redis, { managementUrl: management, internalSecret: SECRET, cacheTtlSeconds: 60 }),
    limiter: new RateLimiter(redis),
    keyUsage: { record: () => {} } as unknown as KeyUsageRecorder,
    readiness: {},
  });
  gateway = await listen(createServer(app));
});
afterAll(async () => {
  for (const s of servers) s.close();
  redis?.disconnect();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});
beforeEach(() => {
  seen.length = 0;
});

let clientSeq = 0;
/** A distinct client address per call site (the gateway trusts one proxy hop, as behind the redirect). */
const newClient = () => `203.0.113.${++clientSeq}`;

/** Sends the path byte for byte (fetch would resolve dot segments first). */
function send(path: string, headers: Record<string, string> = {}, client = newClient(), method = "GET") {
  const { port } = new URL(gateway);
  return new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        headers: { "x-forwarded-for": client, ...headers },
        agent: false,
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
const withKey = { authorization: `Bearer ${GOOD_KEY}` };

describe("canonical paths", () => {
  it("refuses the traversal into management's internal API and its variants, forwarding nothing", async () => {
    const cases = [
      "/api/v1/links/%2e%2e/%2e%2e/%2e%2e/internal/links/resolve/abc",
      "/api/v1/links/..\\..\\..\\internal/links/resolve/abc",
      "/api/v1/links/../../../internal/links/resolve/abc",
      "/api/v1/links/%2E%2E%2f%2E%2E%2finternal/keys/x",
      "/api/v1/links/..%5c..%5cinternal",
      "/api/v1/./links",
      "/api/v1//links",
      "/api/v1/links/%00",
      "/api/v1/analytics/%2e%2e/%2e%2e/links",
      "/api/v1/public/analytics/..%2f..%2flinks",
      "/api/v1/links/%c0%ae%c0%ae/internal",
    ];
    for (const path of cases) {
      const res = await send(path, withKey);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.text), path).toEqual({
        success: false,
        error: { code: "BAD_REQUEST", message: expect.any(String) },
      });
    }
    const legacy = await send("/api/link/../../internal/keys/x", withKey);
    expect(legacy.status).toBe(400);
    expect(JSON.parse(legacy.text)).toEqual({ error: 1, message: "Path contains a dot segment" });
    const elsewhere = await send("/c/..%2f..%2finternal/links/resolve/abc");
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers["content-type"]).toMatch(/^text\/plain/);
    expect(seen).toEqual([]);
  });

  it("forwards exactly the path it routed, query included, to the service that owns it", async () => {
    const cases: [string, string][] = [
      ["/api/v1/links/caf%C3%A9?q=a/../b&x=%2e%2e", "management"],
      ["/API/V1/LINKS?page=2", "management"],
      ["/api/account", "management"],
      ["/api/v1/analytics/summary?days=7", "analytics"],
      ["/api/v1/public/analytics/abc", "analytics"],
      ["/c/spring", "management"],
      ["/abc123", "redirect"],
    ];
    for (const [path, service] of cases) {
      const res = await send(path, withKey);
      expect(res.status, path).toBe(200);
      expect(JSON.parse(res.text), path).toEqual({ service, url: path });
    }
  });
});

describe("credentials on forwarded requests", () => {
  it("strips every x-kurz-* header a client sends and adds the forwarding credential only to a user's request", async () => {
    const forged = {
      "x-kurz-account-id": "00000000-0000-4000-8000-00000000dead",
      "x-kurz-key-id": "forged",
      "x-kurz-internal-token": SECRET,
      "x-kurz-forward-token": forwardToken(SECRET),
      "x-kurz-caller": "gateway",
    };
    await send("/api/v1/links", { ...withKey, ...forged });
    const user = seen.at(-1)!;
    expect(user.headers["x-kurz-account-id"]).toBe(record.account_id);
    expect(user.headers["x-kurz-key-id"]).toBe(record.key_id);
    expect(user.headers["x-kurz-forward-token"]).toBe(forwardToken(SECRET));
    expect(user.headers["x-kurz-internal-token"]).toBeUndefined();
    expect(user.headers["x-kurz-caller"]).toBeUndefined();
    // Nothing the gateway sends is the raw secret or a caller credential.
    for (const value of Object.values(user.headers)) {
      expect([SECRET, callerToken(SECRET, "gateway")]).not.toContain(value);
    }

    for (const path of ["/api/v1/public/analytics/abc", "/c/spring", "/abc123"]) {
      await send(path, forged);
      const anon = seen.at(-1)!;
      const kurz = Object.keys(anon.headers).filter((h) => h.startsWith("x-kurz-"));
      expect(kurz, path).toEqual([]);
    }
  });
});

describe("sessions and sign-in on forwarded requests", () => {
  const forged = {
    "x-kurz-session-id": "00000000-0000-4000-8000-00000000beef",
    "x-kurz-client": "forged-client",
    "x-kurz-account-id": "00000000-0000-4000-8000-00000000dead",
  };

  it("forwards sign-up and sign-in without a key, with the forwarding credential, the client's hash and no cookie", async () => {
    const client = newClient();
    for (const path of ["/api/v1/auth/register", "/api/v1/auth/login", "/API/V1/AUTH/LOGIN/"]) {
      const res = await send(path, { cookie: "kurz_session=planted; other=1", ...forged }, client, "POST");
      expect(res.status, path).toBe(200);
      const upstream = seen.at(-1)!;
      expect(upstream.service).toBe("management");
      expect(upstream.headers["x-kurz-forward-token"]).toBe(forwardToken(SECRET));
      expect(upstream.headers["x-kurz-client"]).toMatch(/^[0-9a-f]{16,}$/);
      expect(upstream.headers["x-kurz-account-id"]).toBeUndefined();
      expect(upstream.headers["x-kurz-session-id"]).toBeUndefined();
      expect(upstream.headers.cookie).toBeUndefined();
    }
    // The hash is the client's, stable per address and different between addresses.
    const first = seen.at(-1)!.headers["x-kurz-client"];
    await send("/api/v1/auth/login", {}, client, "POST");
    expect(seen.at(-1)!.headers["x-kurz-client"]).toBe(first);
    await send("/api/v1/auth/login", {}, newClient(), "POST");
    expect(seen.at(-1)!.headers["x-kurz-client"]).not.toBe(first);
    // A wrong method is answered here (405), and nothing is forwarded.
    const before = seen.length;
    const get = await send("/api/v1/auth/login", {}, client);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    expect(seen.length).toBe(before);
  });

  it("a key's request carries neither the cookie nor a session id upstream", async () => {
    await send("/api/v1/links", { ...withKey, cookie: "kurz_session=whatever; theme=dark", ...forged });
    const upstream = seen.at(-1)!;
    expect(upstream.headers["x-kurz-account-id"]).toBe(record.account_id);
    expect(upstream.headers["x-kurz-session-id"]).toBeUndefined();
    expect(upstream.headers["x-kurz-client"]).toBeUndefined();
    expect(upstream.headers.cookie).toBeUndefined();
  });
});

describe("failed-authentication budget", () => {
  it("counts bad keys per client, reports the budget on 401s, then answers 429 without looking keys up", async () => {
    const client = newClient();
    for (let i = 1; i <= FAILURE_LIMIT; i++) {
      const res = await send(
        "/api/v1/links",
        { authorization: `Bearer kurz_live_${"x".repeat(32)}` },
        client,
      );
      expect(res.status).toBe(401);
      expect(res.headers["x-ratelimit-limit"]).toBe(String(FAILURE_LIMIT));
      expect(res.headers["x-ratelimit-remaining"]).toBe(String(FAILURE_LIMIT - i));
      expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    const before = lookups;
    for (const headers of [{}, { authorization: "Bearer nope" }, withKey]) {
      const res = await send("/api/v1/links", headers, client);
      expect(res.status).toBe(429);
      expect(res.headers["x-ratelimit-limit"]).toBe(String(FAILURE_LIMIT));
      expect(res.headers["x-ratelimit-remaining"]).toBe("0");
      expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      const body = JSON.parse(res.text);
      expect(body.success).toBe(false);
      expect(body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      expect(body.error.details).toMatchObject({ limit: FAILURE_LIMIT, window: "1m" });
    }
    const legacy = await send("/api/account", { authorization: "Bearer nope" }, client);
    expect(legacy.status).toBe(429);
    expect(JSON.parse(legacy.text)).toEqual({
      error: 1,
      message: expect.stringMatching(/failed authentications/),
    });
    expect(lookups).toBe(before);
    expect(seen).toEqual([]);

    // Another client is not affected, and a good key's answer carries its own budget.
    const other = await send("/api/v1/links", withKey, newClient());
    expect(other.status).toBe(200);
    expect(other.headers["x-ratelimit-limit"]).toBe(String(record.rate_limit_per_minute));
  });
});
