// How the gateway authenticates a session cookie (docs/decisions/0021-sessions-and-csrf.md): from
// Redis once looked up, a damaged entry replaced from management, a tombstone final; its own budget
// per account with the X-RateLimit-* headers; sliding renewal that re-issues the cookie; sign-up and
// sign-in budgeted per client at the gateway. The whole stack runs in-process.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { useStack } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";

const SESSION_BUDGET = 6;
const AUTH_BUDGET = 8;
// 36 s idle lifetime: renewal is due after a tenth of it.
const TTL_HOURS = 0.01;

const bed = useStack({
  inProcess: true,
  extraEnv: {
    SESSION_RATE_LIMIT_PER_MINUTE: String(SESSION_BUDGET),
    AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_BUDGET),
    SESSION_TTL_HOURS: String(TTL_HOURS),
  },
});
let seq = 0;

async function register() {
  const email = `gw-session-${process.pid}-${Date.now()}-${seq++}@example.com`;
  const res = await fetch(`${bed.stack.origin}/api/v1/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "gateway test password" }),
  });
  expect(res.status).toBe(201);
  const token = /kurz_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  const { data } = (await res.json()) as { data: { session: { csrf_token: string } } };
  return { token, csrf: data.session.csrf_token, hash: createHash("sha256").update(token).digest("hex") };
}

const get = (path: string, token: string) =>
  fetch(`${bed.stack.origin}${path}`, { headers: { cookie: `theme=dark; kurz_session=${token}` } });

describe("session authentication at the gateway", () => {
  it("serves a session from its cache entry, and replaces a damaged entry from management", async () => {
    const { token, hash } = await register();
    expect((await get("/api/v1/account", token)).status).toBe(200);
    const entry = await bed.redis.get(`session:${hash}`);
    expect(JSON.parse(entry!)).toMatchObject({
      session_id: expect.any(String),
      csrf_token: expect.any(String),
    });
    expect(await bed.redis.ttl(`session:${hash}`)).toBeLessThanOrEqual(60);

    await bed.redis.set(`session:${hash}`, "{not json");
    expect((await get("/api/v1/account", token)).status).toBe(200);
    expect(JSON.parse((await bed.redis.get(`session:${hash}`))!).session_id).toBe(
      JSON.parse(entry!).session_id,
    );
  });

  it("answers 401 for a session whose row is gone once the cache has no entry (and remembers briefly)", async () => {
    const { token, hash } = await register();
    await bed.prisma.session.deleteMany({ where: { tokenHash: hash } });
    await bed.redis.del(`session:${hash}`);
    const res = await get("/api/v1/account", token);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    expect(await bed.redis.get(`session:${hash}`)).toBe("unknown");
  });

  it("renews a session in use once a tenth of its lifetime has passed, and re-issues the cookie", async () => {
    const { token, hash } = await register();
    const first = await get("/api/v1/account", token);
    expect(first.headers.get("set-cookie")).toBeNull();
    const before = await bed.prisma.session.findUniqueOrThrow({ where: { tokenHash: hash } });
    // A sleep: renewal is due after a tenth of the lifetime, and that time is what is under test.
    await sleep(TTL_HOURS * 3_600_000 * 0.1 + 300);
    const renewed = await get("/api/v1/account", token);
    expect(renewed.status).toBe(200);
    expect(renewed.headers.get("set-cookie")).toMatch(
      new RegExp(`^kurz_session=${token}; Max-Age=3[56]; Path=/; HttpOnly; SameSite=Lax$`),
    );
    const after = await bed.prisma.session.findUniqueOrThrow({ where: { tokenHash: hash } });
    expect(after.expiresAt.getTime()).toBeGreaterThan(before.expiresAt.getTime());
    expect(JSON.parse((await bed.redis.get(`session:${hash}`))!).expires_at).toBe(
      after.expiresAt.toISOString(),
    );
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

  it("lets a session manage the older API's domains, campaigns, channels and overlays, with its CSRF token and budget", async () => {
    const { token, csrf } = await register();
    const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      fetch(`${bed.stack.origin}${path}`, {
        method,
        headers: { cookie: `kurz_session=${token}`, "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await send("POST", "/api/channel/add", { "x-csrf-token": csrf }, { name: "by session" });
    expect(created.status).toBe(200);
    expect(created.headers.get("x-ratelimit-limit")).toBe(String(SESSION_BUDGET));
    const list = await send("GET", "/api/channels");
    const body = (await list.json()) as { error: number; data: { channels: { name: string }[] } };
    expect(body.data.channels.map((c) => c.name)).toEqual(["by session"]);
    // One budget per account across both APIs.
    expect(Number(list.headers.get("x-ratelimit-remaining"))).toBeLessThanOrEqual(SESSION_BUDGET - 2);
    const forged = await send("POST", "/api/channel/add", {}, { name: "cross-site" });
    expect(forged.status).toBe(403);
    expect(await forged.json()).toEqual({ error: 1, message: "CSRF token missing or invalid" });
    // The account's own routes (password without the current one) and dot segments stay key-only.
    expect((await send("GET", "/api/account")).status).toBe(401);
    expect((await send("GET", "/api/channels/../account")).status).toBe(401);
  });

  it("budgets sign-up and sign-in requests per client", async () => {
    let limited: Response | undefined;
    for (let i = 0; i < AUTH_BUDGET * 2 + 1 && !limited; i++) {
      const res = await fetch(`${bed.stack.origin}/api/v1/auth/login`, {
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
