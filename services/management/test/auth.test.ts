// Accounts and sessions through the public origin (docs/api.md "Sessions"): sign-up with
// the first key shown once, sign-in and sign-out, the session cookie's attributes, the CSRF header,
// the dashboard using ordinary /api/v1 routes with its session, password change and account settings.
import { useStack } from "@kurz/testing/use-stack";
import { describe, expect, it } from "vitest";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// biome-ignore lint/suspicious/noExplicitAny: assertions check the shape member by member
type Json = any;

interface Answer {
  status: number;
  headers: Headers;
  body: Json;
}

describe("accounts and sessions", () => {
  const bed = useStack({ inProcess: true });
  let seq = 0;
  const email = (label: string) => `auth-${label}-${process.pid}-${Date.now()}-${seq++}@example.com`;

  async function call(
    method: string,
    path: string,
    opts: { body?: unknown; cookie?: string; csrf?: string; key?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (opts.body !== undefined) headers["content-type"] = "application/json";
    if (opts.cookie) headers.cookie = `kurz_session=${opts.cookie}`;
    if (opts.csrf) headers["x-csrf-token"] = opts.csrf;
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    const res = await fetch(`${bed.stack.origin}/api/v1${path}`, {
      method,
      headers,
      ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: await res.json().catch(() => null) };
  }

  const tokenOf = (res: Answer) =>
    /kurz_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1] ?? "";

  async function register(label: string, password = "correct horse battery") {
    const address = email(label);
    const res = await call("POST", "/auth/register", { body: { email: address, password } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { email: address, password, res, token: tokenOf(res), session: res.body.data.session };
  }

  it("signs up: account, first API key shown once, session cookie with its attributes", async () => {
    const address = email("Signup").replace("auth-", "Auth-");
    const res = await call("POST", "/auth/register", {
      body: { email: `  ${address.toUpperCase()} `, password: "plum kayak lantern" },
    });
    expect(res.status).toBe(201);
    const { account, api_key, session } = res.body.data;
    expect(account.email).toBe(address.toLowerCase());
    expect(account.total_links).toBe(0);
    expect(api_key.key).toMatch(/^kurz_live_[A-Za-z0-9]{32}$/);
    expect(api_key.name).toBe("Default key");
    expect(session).toMatchObject({ account_id: account.id, email: account.email });
    expect(session.expires_at).toMatch(TIMESTAMP);
    expect(session.csrf_token.length).toBeGreaterThanOrEqual(32);
    const [cookie, device] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^kurz_session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    // The browser's device cookie (which sign-ins are announced by e-mail), kept as long as browsers allow.
    expect(device).toMatch(
      /^kurz_device=[A-Za-z0-9_-]{43}; Max-Age=34560000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(res.headers.get("cache-control")).toBe("no-store");
    // Only hashes are stored: neither the key nor the session token is in the database.
    const row = await bed.prisma.session.findFirstOrThrow({ where: { userId: session.user_id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.tokenHash).not.toBe(tokenOf(res));
    const stored = await bed.prisma.user.findUniqueOrThrow({ where: { id: session.user_id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    // The key works, and the usage list never shows it again.
    const usage = await call("GET", "/account/usage", { key: api_key.key });
    expect(usage.status).toBe(200);
    expect(JSON.stringify(usage.body)).not.toContain(api_key.key);
  });

  it("refuses short passwords, bad addresses and a taken address in any case", async () => {
    const short = await call("POST", "/auth/register", {
      body: { email: email("short"), password: "seven77" },
    });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe("VALIDATION_ERROR");
    expect(short.headers.get("set-cookie")).toBeNull();
    const bad = await call("POST", "/auth/register", {
      body: { email: "not-an-address", password: "long enough" },
    });
    expect(bad.status).toBe(400);
    const first = await register("taken");
    const again = await call("POST", "/auth/register", {
      body: { email: first.email.toUpperCase(), password: "another password" },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("CONFLICT");
    expect(
      await bed.prisma.account.count({ where: { email: { equals: first.email, mode: "insensitive" } } }),
    ).toBe(1);
  });

  it("signs in with any case of the address; a wrong password or unknown address is the same 401", async () => {
    const user = await register("signin");
    const ok = await call("POST", "/auth/login", {
      body: { email: user.email.toUpperCase(), password: user.password },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data.account.email).toBe(user.email);
    expect(ok.body.data.session.account_id).toBe(ok.body.data.account.id);
    expect(tokenOf(ok)).not.toBe(user.token);
    const wrong = await call("POST", "/auth/login", {
      body: { email: user.email, password: "wrong password" },
    });
    const unknown = await call("POST", "/auth/login", {
      body: { email: email("nobody"), password: "whatever1" },
    });
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: "UNAUTHORIZED", message: "Invalid e-mail or password" });
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("lets a session use the ordinary /api/v1 routes, writes only with the CSRF token", async () => {
    const user = await register("dashboard");
    const { csrf_token } = user.session;
    const session = await call("GET", "/auth/session", { cookie: user.token });
    expect(session.status).toBe(200);
    expect(session.body.data).toMatchObject({ email: user.email, csrf_token });
    expect(session.headers.get("x-ratelimit-limit")).toBe("600");

    const account = await call("GET", "/account", { cookie: user.token });
    expect(account.status).toBe(200);
    expect(account.body.data.email).toBe(user.email);
    const usage = await call("GET", "/account/usage", { cookie: user.token });
    expect(usage.status).toBe(200);
    expect(usage.body.data.current_key).toBeNull();
    expect(usage.body.data.keys).toHaveLength(1);

    const body = { url: "https://example.com/from-dashboard" };
    const refused = await call("POST", "/links", { cookie: user.token, body });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "FORBIDDEN", message: "CSRF token missing or invalid" });
    const wrong = await call("POST", "/links", { cookie: user.token, body, csrf: `${csrf_token}x` });
    expect(wrong.status).toBe(403);
    expect(await bed.prisma.link.count({ where: { account: { email: user.email } } })).toBe(0);
    const created = await call("POST", "/links", { cookie: user.token, body, csrf: csrf_token });
    expect(created.status).toBe(201);
    const list = await call("GET", "/links", { cookie: user.token });
    expect(list.body.data.map((l: Json) => l.id)).toEqual([created.body.data.id]);
    // Keys made from the dashboard (the write needs the token too, and the password re-entered).
    const unconfirmed = await call("POST", "/account/keys", {
      cookie: user.token,
      csrf: csrf_token,
      body: { name: "ci" },
    });
    expect(unconfirmed.status).toBe(403);
    const key = await call("POST", "/account/keys", {
      cookie: user.token,
      csrf: csrf_token,
      body: { name: "ci", current_password: user.password },
    });
    expect(key.status).toBe(201);
  });

  it("updates default_expiry_hours", async () => {
    const user = await register("settings");
    const csrf = user.session.csrf_token;
    const set = await call("PATCH", "/account", {
      cookie: user.token,
      csrf,
      body: { default_expiry_hours: 48 },
    });
    expect(set.status).toBe(200);
    expect(set.body.data.default_expiry_hours).toBe(48);
    for (const value of [0, 87_601, 1.5, "12"]) {
      const bad = await call("PATCH", "/account", {
        cookie: user.token,
        csrf,
        body: { default_expiry_hours: value },
      });
      expect(bad.status, String(value)).toBe(400);
    }
    const unknown = await call("PATCH", "/account", { cookie: user.token, csrf, body: { link_limit: 1e6 } });
    expect(unknown.status).toBe(400);
    const cleared = await call("PATCH", "/account", {
      key: user.res.body.data.api_key.key,
      body: { default_expiry_hours: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.default_expiry_hours).toBeNull();
    expect((await call("GET", "/account", { cookie: user.token })).body.data.link_limit).toBe(500);
  });

  it("updates health_check_interval, and the workspace's links are re-timed with it", async () => {
    const user = await register("health-interval");
    const key = user.res.body.data.api_key.key;
    const link = await call("POST", "/links", { key, body: { url: "https://example.com/h", title: "h" } });
    expect(link.status).toBe(201);
    const nextCheck = async () =>
      (
        await bed.prisma.$queryRaw<{ t: string | null }[]>`
          SELECT next_check_at::text AS t FROM link_health_schedule WHERE link_id = ${link.body.data.id}::uuid`
      )[0]?.t;
    // Never checked: due at once.
    expect(await nextCheck()).toBe("-infinity");
    const off = await call("PATCH", "/account", { key, body: { health_check_interval: "off" } });
    expect(off.status).toBe(200);
    expect(off.body.data.health_check_interval).toBe("off");
    expect(await nextCheck()).toBeNull();
    for (const value of ["every-second", 24, null, "Daily"]) {
      const bad = await call("PATCH", "/account", { key, body: { health_check_interval: value } });
      expect(bad.status, String(value)).toBe(400);
    }
    expect((await call("GET", "/account", { key })).body.data.health_check_interval).toBe("off");
    const hourly = await call("PATCH", "/account", { key, body: { health_check_interval: "hourly" } });
    expect(hourly.body.data.health_check_interval).toBe("hourly");
    expect(await nextCheck()).toBe("-infinity");
  });

  it("signs out: the session ends, the cookie is cleared, another session of the account lives on", async () => {
    const user = await register("signout");
    const other = await call("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    const out = await call("POST", "/auth/logout", { cookie: user.token, csrf: user.session.csrf_token });
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ signed_out: true });
    expect(out.headers.get("set-cookie")).toMatch(
      /^kurz_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect((await call("GET", "/auth/session", { cookie: user.token })).status).toBe(401);
    expect((await call("GET", "/account", { cookie: user.token })).status).toBe(401);
    expect((await call("GET", "/auth/session", { cookie: tokenOf(other) })).status).toBe(200);
  });

  it("session-only routes refuse an API key", async () => {
    const user = await register("keyonly");
    const res = await call("GET", "/auth/session", { key: user.res.body.data.api_key.key });
    expect(res.status).toBe(401);
    const out = await call("POST", "/auth/logout", { key: user.res.body.data.api_key.key });
    expect(out.status).toBe(401);
  });

  it("changes the password: the current one must match, the other sessions end, this one stays", async () => {
    const user = await register("password");
    const other = tokenOf(
      await call("POST", "/auth/login", { body: { email: user.email, password: user.password } }),
    );
    const csrf = user.session.csrf_token;
    const wrong = await call("POST", "/account/password", {
      cookie: user.token,
      csrf,
      body: { current_password: "not it at all", new_password: "new password 1" },
    });
    // 403, not 401: the session is fine, and the dashboard must not take it for a sign-out.
    expect(wrong.status).toBe(403);
    const short = await call("POST", "/account/password", {
      cookie: user.token,
      csrf,
      body: { current_password: user.password, new_password: "short" },
    });
    expect(short.status).toBe(400);
    expect((await call("GET", "/auth/session", { cookie: other })).status).toBe(200);

    const changed = await call("POST", "/account/password", {
      cookie: user.token,
      csrf,
      body: { current_password: user.password, new_password: "new password 1" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toEqual({ changed: true, revoked_keys: 0 });
    expect((await call("GET", "/auth/session", { cookie: other })).status).toBe(401);
    expect((await call("GET", "/auth/session", { cookie: user.token })).status).toBe(200);
    const oldLogin = await call("POST", "/auth/login", {
      body: { email: user.email, password: user.password },
    });
    expect(oldLogin.status).toBe(401);
    const newLogin = await call("POST", "/auth/login", {
      body: { email: user.email, password: "new password 1" },
    });
    expect(newLogin.status).toBe(200);
  });

  it("the admin CLI's accounts (no password) cannot sign in, and the legacy password change ends sessions", async () => {
    const cli = await bed.stack.createAccount(email("cli"));
    const login = await call("POST", "/auth/login", {
      body: { email: cli.email, password: "anything at all" },
    });
    expect(login.status).toBe(401);
    const set = await fetch(`${bed.stack.origin}/api/account/update`, {
      method: "PUT",
      headers: { authorization: `Bearer ${cli.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ password: "a legacy password" }),
    });
    expect(set.status).toBe(200);
    const signedIn = await call("POST", "/auth/login", {
      body: { email: cli.email, password: "a legacy password" },
    });
    expect(signedIn.status).toBe(200);
    const token = tokenOf(signedIn);
    expect((await call("GET", "/auth/session", { cookie: token })).status).toBe(200);
    const again = await fetch(`${bed.stack.origin}/api/account/update`, {
      method: "PUT",
      headers: { authorization: `Bearer ${cli.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ password: "another legacy password" }),
    });
    expect(again.status).toBe(200);
    expect((await call("GET", "/auth/session", { cookie: token })).status).toBe(401);
  });

  it("prunes expired sessions in bounded batches", async () => {
    const { pruneExpiredSessions } = await import("../src/sessions/prune-sessions.ts");
    const user = await register("prune");
    const userId = user.session.user_id;
    const past = new Date(Date.now() - 60_000);
    await bed.prisma.session.createMany({
      data: Array.from({ length: 5 }, (_, i) => ({
        userId,
        tokenHash: `expired-${process.pid}-${i}`.padStart(64, "0"),
        csrfToken: "x",
        expiresAt: past,
      })),
    });
    expect(await pruneExpiredSessions(bed.prisma, { batch: 2, maxBatches: 2 })).toBe(4);
    expect(await pruneExpiredSessions(bed.prisma, { batch: 2, maxBatches: 2 })).toBe(1);
    expect(await bed.prisma.session.count({ where: { userId } })).toBe(1);
  });
});
