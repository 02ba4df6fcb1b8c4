// The gateway alone, its upstreams down: answers are 503 SERVICE_UNAVAILABLE in the right envelope,
// never a 500 or a hang. The key is put in the gateway's Redis cache so authentication can succeed.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { apiKeyCacheKey } from "@kurz/contracts";
import {
  cleanupRedisPrefix,
  ensureRedis,
  getFreePort,
  printProcessOutputOnFailure,
  type StartedProcess,
  startProcess,
  testRedisUrl,
  uniquePrefix,
} from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyRecord } from "./key-record.ts";

printProcessOutputOnFailure();

const prefix = uniquePrefix("gw-unavailable");
const key = `kurz_live_${"A".repeat(32)}`;
let gateway: StartedProcess;
let origin: string;

beforeAll(async () => {
  await ensureRedis();
  const redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  const record = keyRecord({
    key_id: "00000000-0000-4000-8000-000000000001",
    account_id: "00000000-0000-4000-8000-000000000002",
    name: "cached",
  });
  await redis.set(apiKeyCacheKey(createHash("sha256").update(key).digest("hex")), JSON.stringify(record));
  redis.disconnect();

  // Free ports with nothing listening on them: every upstream refuses connections.
  const [port, dead] = await Promise.all([getFreePort(), getFreePort()]);
  origin = `http://127.0.0.1:${port}`;
  gateway = await startProcess({
    cmd: process.execPath,
    args: ["--import", "tsx", "services/gateway/src/main.ts"],
    cwd: resolve(import.meta.dirname, "../../.."),
    env: {
      PORT: String(port),
      OPS_PORT: "0",
      LOG_LEVEL: "fatal",
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `${prefix}:`,
      INTERNAL_TOKEN: `token-${prefix}`,
      MANAGEMENT_URL: `http://127.0.0.1:${dead}`,
      ANALYTICS_URL: `http://127.0.0.1:${dead}`,
      REDIRECT_URL: `http://127.0.0.1:${dead}`,
    },
    readyUrl: `${origin}/ready`,
    readyTimeoutMs: 60_000,
  });
});
afterAll(async () => {
  await gateway?.stop();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

const get = (path: string, auth: string | null = `Bearer ${key}`) =>
  fetch(`${origin}${path}`, auth ? { headers: { authorization: auth } } : {});

describe("upstream down", () => {
  it("answers 503 SERVICE_UNAVAILABLE in the v1 envelope, with rate-limit headers", async () => {
    for (const path of ["/api/v1/account", "/api/v1/analytics/summary"]) {
      const res = await get(path);
      expect(res.status, path).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.headers.get("x-ratelimit-limit")).toBe("60");
      expect(await res.json()).toEqual({
        success: false,
        error: { code: "SERVICE_UNAVAILABLE", message: expect.any(String) },
      });
    }
  });

  it("answers 503 in the legacy envelope under /api", async () => {
    const res = await get("/api/account");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 1, message: expect.any(String) });
  });

  it("answers 503 when a key cannot be checked, rather than calling it invalid", async () => {
    const res = await get("/api/v1/account", `Bearer kurz_live_${"B".repeat(32)}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SERVICE_UNAVAILABLE");
    // A key that cannot be valid needs no lookup and is refused as before.
    expect((await get("/api/v1/account", "Bearer nope")).status).toBe(401);
  });

  it("still serves what it owns: health, the OpenAPI document and the docs page", async () => {
    expect((await get("/health", null)).status).toBe(200);
    expect((await get("/api/v1/openapi.json", null)).status).toBe(200);
    expect((await get("/docs", null)).status).toBe(200);
  });
});
