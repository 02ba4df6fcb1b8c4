// Sessions behind https, how long they can last, and ending all of them (docs/security.md, "Sessions and
// CSRF"). The stack's gateway and management are told their public origin is https (the connection
// itself stays plain loopback): the cookie is then `__Host-kurz_session`, which a browser accepts only
// from this exact host, and the plain name, which any sibling host could set, is no session at all. A
// session in constant use still ends 30 days after sign-in. "Sign out everywhere" ends every session
// of the account, and only that account's. Time is moved by rewriting stored moments: nothing sleeps.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectV1Error, type Owner, setCookieOf, useSessionStack } from "./attack.ts";

const COOKIE = "__Host-kurz_session";
const PUBLIC = { PUBLIC_BASE_URL: "https://kurz-tls.example" };

// Over https the session cookie is the __Host- one unless a call names another.
const { bed, call, register } = useSessionStack(
  {},
  { inProcess: true, serviceEnv: { gateway: PUBLIC, management: PUBLIC } },
  { cookieName: COOKIE },
);

async function signIn(owner: Owner) {
  const res = await call("POST", "/api/v1/auth/login", {}, { email: owner.email, password: owner.password });
  expect(res.status, res.text).toBe(200);
  const token = new RegExp(`^${COOKIE}=([A-Za-z0-9_-]{43});`).exec(setCookieOf(res))?.[1];
  expect(token, setCookieOf(res)).toBeDefined();
  return { cookie: token!, csrf: res.body.data.session.csrf_token as string, setCookie: setCookieOf(res) };
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

describe("the cookie behind https", () => {
  it("is __Host-kurz_session, Secure, for the whole host and no Domain; the plain name is no session", async () => {
    const owner = await register("host-prefix");
    const session = await signIn(owner);
    expect(session.setCookie).toMatch(
      new RegExp(`^${COOKIE}=[A-Za-z0-9_-]{43}; Max-Age=\\d+; Path=/; HttpOnly; SameSite=Lax; Secure$`, "m"),
    );
    // The device cookie (which sign-ins are announced) is host-only and Secure alike.
    expect(session.setCookie).toMatch(
      /^__Host-kurz_device=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax; Secure$/m,
    );
    expect(session.setCookie).not.toMatch(/domain=/i);
    expect((await call("GET", "/api/v1/account", session)).status).toBe(200);

    // The same valid token under the name a sibling host (or plain http) could set: refused.
    const plain = { ...session, cookieName: "kurz_session" };
    expectV1Error(await call("GET", "/api/v1/account", plain), 401, "UNAUTHORIZED");
    expectV1Error(
      await call("POST", "/api/v1/links", plain, { url: "https://planted.example/" }),
      401,
      "UNAUTHORIZED",
    );
    // Sign-out clears the prefixed cookie.
    const out = await call("POST", "/api/v1/auth/logout", session);
    expect(out.status, out.text).toBe(200);
    expect(setCookieOf(out)).toMatch(
      new RegExp(`^${COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure$`),
    );
  });
});

describe("the absolute lifetime", () => {
  /** As if the session had signed in `days` ago and, used ever since, was last renewed 2 minutes ago. */
  async function age(token: string, days: number) {
    const rows = await bed.prisma.$executeRaw`
      UPDATE sessions SET created_at = now() - make_interval(days => ${days}),
                          renewed_at = now() - interval '2 minutes'
      WHERE token_hash = ${hashOf(token)}`;
    expect(rows).toBe(1);
    // The gateway's cached copy lasts a minute at most; it is gone as it would be by then.
    await bed.redis.del(`session:${hashOf(token)}`);
  }

  it("a session in constant use ends 30 days after sign-in", async () => {
    const owner = await register("absolute");
    const session = await signIn(owner);
    await age(session.cookie, 30);
    expectV1Error(await call("GET", "/api/v1/account", session), 401, "UNAUTHORIZED");
    expectV1Error(await call("GET", "/api/v1/auth/session", session), 401, "UNAUTHORIZED");
  });

  it("a day before, it is renewed only up to that end, not for another 14 days", async () => {
    const owner = await register("absolute-near");
    const session = await signIn(owner);
    await age(session.cookie, 29);
    const res = await call("GET", "/api/v1/auth/session", session);
    expect(res.status, res.text).toBe(200);
    const row = await bed.prisma.session.findFirstOrThrow({ where: { tokenHash: hashOf(session.cookie) } });
    const absoluteEnd = row.createdAt.getTime() + 30 * 24 * 3_600_000;
    expect(row.expiresAt.getTime()).toBe(absoluteEnd);
    expect(Date.parse(res.body.data.expires_at)).toBeLessThanOrEqual(absoluteEnd);
    // The re-issued cookie lasts no longer either (a day, give or take the request).
    const maxAge = Number(/Max-Age=(\d+)/.exec(setCookieOf(res))?.[1]);
    expect(maxAge).toBeGreaterThan(0);
    expect(maxAge).toBeLessThanOrEqual(24 * 3600);
  });
});

describe("sign out everywhere", () => {
  it("lists the account's sessions and ends every one of them, and only the account's", async () => {
    const [owner, other] = await Promise.all([register("everywhere"), register("everywhere-other")]);
    const [mine, laptop, phone] = [await signIn(owner), await signIn(owner), await signIn(owner)];
    const stranger = await signIn(other);

    const listed = await call("GET", "/api/v1/auth/sessions", mine);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.headers["cache-control"]).toBe("no-store");
    const rows = await bed.prisma.session.findMany({
      where: { user: { memberships: { some: { accountId: owner.accountId } } } },
    });
    expect(listed.body.data.sessions.map((s: { id: string }) => s.id).sort()).toEqual(
      rows.map((r) => r.id).sort(),
    );
    const current = listed.body.data.sessions.filter((s: { current: boolean }) => s.current);
    expect(current).toHaveLength(1);
    expect(current[0].id).toBe(rows.find((r) => r.tokenHash === hashOf(mine.cookie))!.id);
    // A key has no sessions to list: session-only routes refuse it.
    expectV1Error(await call("GET", "/api/v1/auth/sessions", { key: owner.key }), 401, "UNAUTHORIZED");

    const ended = await call("DELETE", "/api/v1/auth/sessions", mine);
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body.data).toEqual({ ended: 4 });
    expect(setCookieOf(ended)).toMatch(new RegExp(`^${COOKIE}=; Max-Age=0;`));
    for (const session of [mine, laptop, phone]) {
      expectV1Error(await call("GET", "/api/v1/account", session), 401, "UNAUTHORIZED");
      expect(await bed.redis.get(`session:${hashOf(session.cookie)}`)).toBe("revoked");
    }
    expect(
      await bed.prisma.session.count({
        where: { user: { memberships: { some: { accountId: owner.accountId } } } },
      }),
    ).toBe(0);
    // Another account's session, and the owner's keys (not sessions), are untouched.
    expect((await call("GET", "/api/v1/account", stranger)).status).toBe(200);
    expect((await call("GET", "/api/v1/account", { key: owner.key })).status).toBe(200);
  });
});
