// How the gateway authenticates a session cookie (docs/decisions/0021-sessions-and-csrf.md): from
// Redis once looked up, a damaged entry replaced from management, a tombstone final; its own budget
// per account with the X-RateLimit-* headers; sliding renewal that re-issues the cookie; sign-up and
// sign-in budgeted per client at the gateway. The whole stack runs in-process.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { printProcessOutputOnFailure } from "@kurz/testing";
import { type Stack, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

printProcessOutputOnFailure();

const SESSION_BUDGET = 6;
const AUTH_BUDGET = 8;
// 36 s idle lifetime: renewal is due after a tenth of it.
const TTL_HOURS = 0.01;

let stack: Stack;
let prisma: PrismaClient;
let redis: Redis;
let seq = 0;

beforeAll(async () => {
  stack = await startStack({
    inProcess: true,
    extraEnv: {
      SESSION_RATE_LIMIT_PER_MINUTE: String(SESSION_BUDGET),
      AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_BUDGET),
      SESSION_TTL_HOURS: String(TTL_HOURS),
    },
  });
  prisma = createPrisma(stack.databaseUrl);
  redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: `${stack.prefix}:` });
});
afterAll(async () => {
  redis?.disconnect();
  await prisma?.$disconnect();
  await stack?.stop();
});

async function register() {
  const email = `gw-session-${process.pid}-${Date.now()}-${seq++}@example.com`;
  const res = await fetch(`${stack.origin}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "gateway test password" }),
  });
  expect(res.status).toBe(201);
  const token = /kurz_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  return { token, hash: createHash("sha256").update(token).digest("hex") };
}

const get = (path: string, token: string) =>
  fetch(`${stack.origin}${path}`, { headers: { cookie: `theme=dark; kurz_session=${token}` } });

describe("session authentication at the gateway", () => {
  it("serves a session from its cache entry, and replaces a damaged entry from management", async () => {
    const { token, hash } = await register();
    expect((await get("/api/v1/account", token)).status).toBe(200);
    const entry = await redis.get(`session:${hash}`);
    expect(JSON.parse(entry!)).toMatchObject({
      session_id: expect.any(String),
      csrf_token: expect.any(String),
    });
    expect(await redis.ttl(`session:${hash}`)).toBeLessThanOrEqual(60);

    await redis.set(`session:${hash}`, "{not json");
    expect((await get("/api/v1/account", token)).status).toBe(200);
    expect(JSON.parse((await redis.get(`session:${hash}`))!).session_id).toBe(JSON.parse(entry!).session_id);
  });

  it("answers 401 for a session whose row is gone once the cache has no entry (and remembers briefly)", async () => {
    const { token, hash } = await register();
    await prisma.session.deleteMany({ where: { tokenHash: hash } });
    await redis.del(`session:${hash}`);
    const res = await get("/api/v1/account", token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    expect(await redis.get(`session:${hash}`)).toBe("unknown");
  });

  it("renews a session in use once a tenth of its lifetime has passed, and re-issues the cookie", async () => {
    const { token, hash } = await register();
    const first = await get("/api/v1/account", token);
    expect(first.headers.get("set-cookie")).toBeNull();
    const before = await prisma.session.findUniqueOrThrow({ where: { tokenHash: hash } });
    await sleep(TTL_HOURS * 3_600_000 * 0.1 + 300);
    const renewed = await get("/api/v1/account", token);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("set-cookie")).toMatch(
      new RegExp(`^kurz_session=${token}; Max-Age=3[56]; Path=/; HttpOnly; SameSite=Lax$`),
    );
    const after = await prisma.session.findUniqueOrThrow({ where: { tokenHash: hash } });
    expect(after.expiresAt.getTime()).toBeGreaterThan(before.expiresAt.getTime());
    expect(JSON.parse((await redis.get(`session:${hash}`))!).expires_at).toBe(after.expiresAt.toISOString());
  });

  it("gives sessions their own budget per account, with the rate-limit headers", async () => {
    const { token } = await register();
    for (let i = 1; i <= SESSION_BUDGET; i++) {
      const res = await get("/api/v1/links", token);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe(String(SESSION_BUDGET));
      expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeLessThanOrEqual(SESSION_BUDGET - i);
    }
    const spent = await get("/api/v1/links", token);
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(spent.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("budgets sign-up and sign-in requests per client", async () => {
    let limited: Response | undefined;
    for (let i = 0; i < AUTH_BUDGET * 2 + 1 && !limited; i++) {
      const res = await fetch(`${stack.origin}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: `nobody-${i}@example.com`, password: "whatever" }),
      });
      expect(res.headers.get("x-ratelimit-limit") ?? "").toMatch(/^\d+$/);
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited?.headers.get("x-ratelimit-limit")).toBe(String(AUTH_BUDGET));
    expect(Number(limited?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
