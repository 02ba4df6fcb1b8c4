// Attacks on browser sessions (docs/security.md, "Sessions and CSRF"): cross-site form
// posts, session fixation, expiry and sliding renewal, revocation on every gateway path (Redis cache
// included), sign-in guessing, e-mail case games, closed sign-up, cross-tenant reads with a session,
// and a key's request that also carries a cookie. Every write route from contracts is swept with a
// cross-site post, so a new route is attacked as soon as it is declared.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ROUTE_DEFS } from "@kurz/contracts";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type Caller,
  expectLegacyError,
  expectV1Error,
  ONE_CLIENT_AUTH_LIMITS,
  type Owner,
  raw,
  sessionCalls,
  sessionTokenOf,
  setCookieOf,
  uniqueEmail,
  useAttackStack,
  useSessionStack,
} from "./attack.ts";

// 5.4 s of idle lifetime for the expiry attack, on the stack it shares with closed sign-up: the other
// attacks keep the default lifetime, since on a loaded machine one of them can take longer than that (a
// session expiring under it answered 401 where the attack expected 403). The attack waits about 2.3
// lifetimes; its own steps are single requests, each well inside the smallest margin (a tenth of a
// lifetime).
const TTL_HOURS = 0.0015;
const TTL_MS = TTL_HOURS * 3_600_000;
const PER_ACCOUNT = 5;
const PER_CLIENT = 8;

const sample = (path: string, ids: Record<string, string>) =>
  path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => ids[name] ?? ids.id!);

// The attacks on sessions of the default lifetime share one stack. Each stack of the file runs in-process,
// one after another: a process has one embedded ClickHouse engine, so only one such stack can be up at once.
describe("on a stack with the default session lifetime", () => {
  const { bed, call, register, updateAccount } = useSessionStack(
    {
      SIGNIN_ATTEMPTS_PER_ACCOUNT: String(PER_ACCOUNT),
      SIGNIN_ATTEMPTS_PER_CLIENT: String(PER_CLIENT),
    },
    { inProcess: true },
  );

  async function login(email: string, password: string, who: Caller = {}) {
    return call("POST", "/api/v1/auth/login", who, { email, password });
  }

  /** What a session or route could change on an account: its rows, counted and summed. */
  async function footprint(accountId: string) {
    const [account, links, keys, sessions, ...managed] = await Promise.all([
      bed.prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
      bed.prisma.link.findMany({ where: { accountId }, orderBy: { id: "asc" } }),
      bed.prisma.apiKey.findMany({ where: { accountId }, orderBy: { id: "asc" } }),
      bed.prisma.session.count({ where: { user: { memberships: { some: { accountId } } } } }),
      // What the older API's session routes manage.
      bed.prisma.domain.findMany({ where: { accountId }, orderBy: { id: "asc" } }),
      bed.prisma.overlay.findMany({ where: { accountId }, orderBy: { id: "asc" } }),
      bed.prisma.campaign.findMany({
        where: { accountId },
        orderBy: { id: "asc" },
        include: { links: true },
      }),
      bed.prisma.channel.findMany({ where: { accountId }, orderBy: { id: "asc" }, include: { links: true } }),
    ]);
    const { updatedAt: _a, ...accountRest } = account;
    return JSON.stringify(
      {
        accountRest,
        links: links.map(({ updatedAt: _u, ...l }) => l),
        keys: keys.map(({ lastUsedAt: _l, ...k }) => k),
        sessions,
        managed,
      },
      (_k, v) => (typeof v === "bigint" ? String(v) : v),
    );
  }

  /** One of each resource the older API's session routes manage, made with the account's key. */
  async function managedIds(key: string, linkId: string) {
    const made = async (path: string, body: unknown) => {
      const res = await call("POST", path, { key }, body);
      expect(res.status, res.text).toBe(200);
      return String(res.body.id);
    };
    const domain = await made("/api/domain/add", {
      domain: `https://csrf-${Date.now()}-${Math.random().toString(36).slice(2, 8)}.example`,
    });
    const campaign = await made("/api/campaign/add", { name: "csrf campaign" });
    const channel = await made("/api/channel/add", { name: "csrf channel" });
    const overlay = await made("/api/overlay/add", {
      type: "message",
      name: "csrf overlay",
      text: "hello",
      button_label: "Go",
      button_url: "https://x.example/",
    });
    for (const assign of [
      `/api/campaign/${campaign}/assign/${linkId}`,
      `/api/channel/${channel}/assign/${linkId}`,
    ]) {
      const res = await call("POST", assign, { key });
      expect(res.status, res.text).toBe(200);
    }
    return { domain, campaign, campaignid: campaign, channel, channelid: channel, overlay, linkid: linkId };
  }

  const managedIdFor = (path: string, ids: Awaited<ReturnType<typeof managedIds>>) =>
    path.startsWith("/api/domain")
      ? ids.domain
      : path.startsWith("/api/campaign")
        ? ids.campaign
        : path.startsWith("/api/channel")
          ? ids.channel
          : ids.overlay;

  describe("cross-site requests (CSRF)", () => {
    // Every route a session may write to, from contracts: a form on another site can send the cookie
    // (SameSite=Lax still sends it on some top-level navigations, and on same-site subdomains) but can
    // neither read nor set X-CSRF-Token.
    // The older API's domain, campaign, channel and overlay routes take a session too (the dashboard's
    // manage pages), so they are swept as well; its account routes stay key-only (below).
    const writes = ROUTE_DEFS.filter(
      (d) =>
        d.method !== "GET" &&
        d.auth !== "public" &&
        (d.path.startsWith("/api/v1/") || /^\/api\/(domain|campaign|channel|overlay)/.test(d.path)),
    );

    it("sweeps at least the link, key, account, password and sign-out writes", () => {
      const names = writes.map((d) => `${d.method} ${d.path}`);
      for (const expected of [
        "POST /api/v1/links",
        "DELETE /api/v1/links/:id",
        "POST /api/v1/account/keys",
        "PATCH /api/v1/account",
        "POST /api/v1/account/password",
        "POST /api/v1/auth/logout",
        "POST /api/domain/add",
        "DELETE /api/campaign/:id/delete",
        "POST /api/channel/:channelid/assign/:linkid",
        "PUT /api/overlay/:id/update",
      ]) {
        expect(names).toContain(expected);
      }
    });

    // One account for the whole sweep, with a link, a key and one of each resource the older API's
    // session routes manage: a refused post changes nothing, so every case finds them as they were made
    // (a post that got through fails its own case, on the footprint).
    let user: Owner;
    let made: Awaited<ReturnType<typeof managedIds>> & { linkId: string; keyId: string; short_code: string };
    beforeAll(async () => {
      user = await register("csrf");
      const link = await call("POST", "/api/v1/links", { key: user.key }, { url: "https://csrf.example/" });
      expect(link.status, link.text).toBe(201);
      const keyId = (await bed.prisma.apiKey.findFirstOrThrow({ where: { accountId: user.accountId } })).id;
      made = {
        linkId: link.body.data.id,
        keyId,
        short_code: link.body.data.short_code,
        ...(await managedIds(user.key, link.body.data.id)),
      };
    });

    it.each(writes.map((d) => [`${d.method} ${d.path}`, d] as const))(
      "%s posted cross-site with the session cookie and no token changes nothing",
      async (_name, def) => {
        const ids = {
          ...made,
          id: !def.path.startsWith("/api/v1/")
            ? managedIdFor(def.path, made)
            : def.path.includes("/keys/")
              ? made.keyId
              : made.linkId,
        };
        const path = sample(def.path, ids);
        const before = await footprint(user.accountId);
        const forms: { headers: Record<string, string>; body: string }[] = [
          // An HTML form: urlencoded, from another origin.
          {
            headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
            body: "url=https%3A%2F%2Fevil.example%2F&name=evil&default_expiry_hours=1&current_password=x&new_password=evilevil",
          },
          // enctype=text/plain can shape a body that parses as JSON.
          {
            headers: { "content-type": "text/plain", origin: "https://evil.example" },
            body: '{"url":"https://evil.example/","name":"evil","ids":[],"x":"=y"}',
          },
          // Or a JSON body with a wrong or empty token (a guess, a stale page).
          { headers: { "x-csrf-token": "guessed" }, body: JSON.stringify({ name: "evil", ids: [ids.id] }) },
          { headers: { "x-csrf-token": "" }, body: JSON.stringify({ name: "evil", ids: [ids.id] }) },
        ];
        for (const form of forms) {
          const res = await call(def.method, path, { cookie: user.token, headers: form.headers }, form.body);
          if (def.path.startsWith("/api/v1/")) {
            expectV1Error(res, 403, "FORBIDDEN");
            expect(res.body.error.message).toBe("CSRF token missing or invalid");
          } else {
            expectLegacyError(res, 403);
            expect(res.body.message).toBe("CSRF token missing or invalid");
          }
        }
        expect(await footprint(user.accountId)).toBe(before);
        // The same session with its token is let through (the route then answers on its merits).
        const session = await call("GET", "/api/v1/auth/session", { cookie: user.token });
        expect(session.status).toBe(200);
      },
    );

    it("another account's CSRF token does not pass", async () => {
      const [a, b] = await Promise.all([register("csrf-a"), register("csrf-b")]);
      const res = await call(
        "POST",
        "/api/v1/links",
        { cookie: a.token, csrf: b.csrf },
        { url: "https://x.example/" },
      );
      expectV1Error(res, 403, "FORBIDDEN");
      expect(await bed.prisma.link.count({ where: { accountId: { in: [a.accountId, b.accountId] } } })).toBe(
        0,
      );
    });
  });

  describe("session fixation", () => {
    it("refuses a token the server never issued, whatever its shape", async () => {
      for (const token of ["A".repeat(43), "made-up", "", createHash("sha256").update("x").digest("hex")]) {
        for (const path of ["/api/v1/auth/session", "/api/v1/account", "/api/v1/links"]) {
          expectV1Error(await call("GET", path, { cookie: token }), 401, "UNAUTHORIZED");
        }
      }
    });

    it("refuses a session's stored hash presented as a token", async () => {
      const user = await register("fix-hash");
      const row = await bed.prisma.session.findFirstOrThrow({
        where: { user: { memberships: { some: { accountId: user.accountId } } } },
      });
      expectV1Error(
        await call("GET", "/api/v1/auth/session", { cookie: row.tokenHash }),
        401,
        "UNAUTHORIZED",
      );
    });

    it("sign-in issues a new token and never adopts the one the browser brought", async () => {
      const [attacker, victim] = await Promise.all([register("fix-attacker"), register("fix-victim")]);
      // The attacker plants their own valid session, then a token of their choosing, in the victim's browser.
      for (const planted of [attacker.token, "B".repeat(43)]) {
        const res = await login(victim.email, victim.password, { cookie: planted });
        expect(res.status, res.text).toBe(200);
        const issued = sessionTokenOf(res);
        expect(issued).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(issued).not.toBe(planted);
        const mine = await call("GET", "/api/v1/auth/session", { cookie: issued });
        expect(mine.body.data.account_id).toBe(victim.accountId);
      }
      // The planted session is still only the attacker's, and the made-up one is still nobody's.
      const planted = await call("GET", "/api/v1/auth/session", { cookie: attacker.token });
      expect(planted.body.data.account_id).toBe(attacker.accountId);
      expectV1Error(
        await call("GET", "/api/v1/auth/session", { cookie: "B".repeat(43) }),
        401,
        "UNAUTHORIZED",
      );
    });

    it("a cookie with the session name twice is ambiguous and signs nobody in", async () => {
      const user = await register("fix-twice");
      const res = await raw(bed.stack.origin, "GET", "/api/v1/auth/session", {
        headers: { cookie: `kurz_session=${user.token}; kurz_session=${"C".repeat(43)}` },
      });
      expectV1Error(res, 401, "UNAUTHORIZED");
    });
  });

  describe("revocation", () => {
    // Paths served by each upstream behind the gateway, all through the same session check.
    const reads = (linkId: string) => [
      "/api/v1/auth/session",
      "/api/v1/account",
      "/api/v1/links",
      `/api/v1/links/${linkId}`,
      "/api/v1/analytics/summary",
      `/api/v1/analytics/${linkId}`,
    ];

    async function withLink(user: Owner) {
      const res = await call(
        "POST",
        "/api/v1/links",
        { cookie: user.token, csrf: user.csrf },
        { url: "https://r.example/" },
      );
      expect(res.status, res.text).toBe(201);
      return res.body.data.id as string;
    }

    async function expectEverywhere(token: string, linkId: string, status: number) {
      for (const path of reads(linkId)) {
        const res = await call("GET", path, { cookie: token });
        expect(res.status, `${path}: ${res.text}`).toBe(status);
      }
    }

    const cached = async (token: string) =>
      bed.redis.get(`session:${createHash("sha256").update(token).digest("hex")}`);

    it("sign-out ends the session at once on every path, cached copy included", async () => {
      const user = await register("logout");
      const linkId = await withLink(user);
      await expectEverywhere(user.token, linkId, 200);
      const record = JSON.parse((await cached(user.token))!);
      expect({ email: record.email, workspaces: record.workspaces }).toEqual({
        email: user.email,
        workspaces: [{ id: user.accountId, role: "owner", two_factor_missing: false }],
      });
      const out = await call("POST", "/api/v1/auth/logout", { cookie: user.token, csrf: user.csrf });
      expect(out.status).toBe(200);
      expect(await cached(user.token)).toBe("revoked");
      await expectEverywhere(user.token, linkId, 401);
      expect(
        await bed.prisma.session.count({
          where: { user: { memberships: { some: { accountId: user.accountId } } } },
        }),
      ).toBe(0);
      // Signing out again with the dead cookie is refused, not an error.
      expectV1Error(
        await call("POST", "/api/v1/auth/logout", { cookie: user.token, csrf: user.csrf }),
        401,
        "UNAUTHORIZED",
      );
    });

    it("a password change ends every other session at once, through v1 and the legacy API", async () => {
      const user = await register("pwchange");
      const linkId = await withLink(user);
      const second = sessionTokenOf(await login(user.email, user.password));
      await expectEverywhere(second, linkId, 200);
      const changed = await call(
        "POST",
        "/api/v1/account/password",
        { cookie: user.token, csrf: user.csrf },
        { current_password: user.password, new_password: "a brand new password" },
      );
      expect(changed.status, changed.text).toBe(200);
      expect(await cached(second)).toBe("revoked");
      await expectEverywhere(second, linkId, 401);
      await expectEverywhere(user.token, linkId, 200);

      // The older API's password change (a key's request) ends them all, this one included.
      const legacy = await updateAccount({ key: user.key }, { password: "the legacy one" });
      expect(legacy.status, legacy.text).toBe(200);
      await expectEverywhere(user.token, linkId, 401);
    });

    it("a revoked session cannot be revived by a lookup that raced with the revocation", async () => {
      const user = await register("race");
      const hash = createHash("sha256").update(user.token).digest("hex");
      await call("POST", "/api/v1/auth/logout", { cookie: user.token, csrf: user.csrf });
      // What a gateway that read the row just before the sign-out would write: refused by the tombstone.
      await bed.redis.del(`session:${hash}`);
      await bed.redis.set(`session:${hash}`, "revoked", "EX", 60);
      expectV1Error(await call("GET", "/api/v1/account", { cookie: user.token }), 401, "UNAUTHORIZED");
      // Even with the cache gone, Postgres has no row: the session stays dead.
      await bed.redis.del(`session:${hash}`);
      expectV1Error(await call("GET", "/api/v1/account", { cookie: user.token }), 401, "UNAUTHORIZED");
    });
  });

  describe("sign-in guessing", () => {
    it("is limited per account: 429 with Retry-After, even for the right password, without a session", async () => {
      const user = await register("guess");
      for (let i = 0; i < PER_ACCOUNT; i++) {
        expectV1Error(await login(user.email, `wrong-${i}-password`), 401, "UNAUTHORIZED");
      }
      for (const password of ["wrong-again-password", user.password]) {
        const res = await login(user.email.toUpperCase(), password);
        expectV1Error(res, 429, "RATE_LIMIT_EXCEEDED");
        expect(Number(res.headers["retry-after"])).toBeGreaterThan(0);
        expect(res.headers["x-ratelimit-limit"]).toBe(String(PER_ACCOUNT));
        expect(res.headers["x-ratelimit-remaining"]).toBe("0");
        expect(Number(res.headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
        expect(setCookieOf(res)).toBe("");
      }
      // Another account from the same client is not locked out by this one's budget.
      const other = await register("guess-other");
      expect((await login(other.email, other.password)).status).toBe(200);
    });

    it("is limited per client across accounts", async () => {
      const users = await Promise.all([register("spray-1"), register("spray-2")]);
      for (let i = 0; i < PER_CLIENT; i++) {
        const target = i % 2 === 0 ? uniqueEmail("spray-nobody") : users[i % 2]!.email;
        expectV1Error(await login(target, `spray-${i}-password`), 401, "UNAUTHORIZED");
      }
      const res = await login(users[0]!.email, users[0]!.password);
      expectV1Error(res, 429, "RATE_LIMIT_EXCEEDED");
      expect(res.headers["x-ratelimit-limit"]).toBe(String(PER_CLIENT));
    });

    it("a wrong current password on the password change spends the same budget", async () => {
      const user = await register("pw-guess");
      const guess = (current: string) =>
        call(
          "POST",
          "/api/v1/account/password",
          { cookie: user.token, csrf: user.csrf },
          { current_password: current, new_password: "attacker's password" },
        );
      for (let i = 0; i < PER_ACCOUNT; i++) expectV1Error(await guess(`guess-${i}`), 403, "FORBIDDEN");
      expectV1Error(await guess(user.password), 429, "RATE_LIMIT_EXCEEDED");
      expect((await login(user.email, "attacker's password")).status).not.toBe(200);
    });
  });

  describe("accounts", () => {
    it("e-mail addresses are unique without regard to case, even when sign-ups race", async () => {
      const email = uniqueEmail("CaseRace");
      const variants = [email, email.toUpperCase(), email.toLowerCase(), ` ${email} `];
      const answers = await Promise.all(
        variants.map((address) =>
          call("POST", "/api/v1/auth/register", {}, { email: address, password: "racing password" }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
      expect(
        await bed.prisma.account.count({ where: { email: { equals: email, mode: "insensitive" } } }),
      ).toBe(1);
    });

    it("a session of account A cannot read or change account B's links", async () => {
      const [a, b] = await Promise.all([register("tenant-a"), register("tenant-b")]);
      const link = await call(
        "POST",
        "/api/v1/links",
        { key: b.key },
        { url: "https://b.example/", title: "B's" },
      );
      const id = link.body.data.id;
      const before = await footprint(b.accountId);
      const asA = { cookie: a.token, csrf: a.csrf };
      expectV1Error(await call("GET", `/api/v1/links/${id}`, asA), 404, "NOT_FOUND");
      expectV1Error(await call("GET", `/api/v1/analytics/${id}`, asA), 404, "NOT_FOUND");
      expectV1Error(await call("PATCH", `/api/v1/links/${id}`, asA, { title: "A's now" }), 404, "NOT_FOUND");
      expectV1Error(await call("DELETE", `/api/v1/links/${id}`, asA), 404, "NOT_FOUND");
      const list = await call("GET", "/api/v1/links", asA);
      expect(list.body.data).toEqual([]);
      const bulk = await call("DELETE", "/api/v1/links/bulk", asA, { ids: [id] });
      expect(bulk.status).toBe(200);
      expect(await footprint(b.accountId)).toBe(before);
    });

    it("a key's request ignores any cookie: it acts as the key, needs no CSRF token, and cannot fall back", async () => {
      const [a, b] = await Promise.all([register("bearer-a"), register("bearer-b")]);
      const me = await call("GET", "/api/v1/account", { key: a.key, cookie: b.token });
      expect(me.body.data.id).toBe(a.accountId);
      const created = await call(
        "POST",
        "/api/v1/links",
        { key: a.key, cookie: b.token },
        { url: "https://a.example/" },
      );
      expect(created.status).toBe(201);
      expect(await bed.prisma.link.count({ where: { accountId: b.accountId } })).toBe(0);
      // A bad key with a good cookie is a bad key.
      const bad = await call("GET", "/api/v1/account", {
        key: `kurz_live_${"x".repeat(32)}`,
        cookie: b.token,
      });
      expectV1Error(bad, 401, "UNAUTHORIZED");
      const empty = await call("GET", "/api/v1/account", { cookie: b.token, headers: { authorization: "" } });
      expectV1Error(empty, 401, "UNAUTHORIZED");
      // Session-only routes refuse a key even with a cookie beside it.
      expectV1Error(
        await call("GET", "/api/v1/auth/session", { key: a.key, cookie: a.token }),
        401,
        "UNAUTHORIZED",
      );
    });

    it("the older API takes keys only: a session cookie is not a credential there", async () => {
      const user = await register("legacy-cookie");
      expectLegacyError(await call("GET", "/api/account", { cookie: user.token }), 401);
      const res = await updateAccount(
        { cookie: user.token, csrf: user.csrf },
        { password: "legacy takeover" },
      );
      expectLegacyError(res, 401);
      expect((await login(user.email, user.password)).status).toBe(200);
    });

    it("the session token never reaches an upstream service or a response body", async () => {
      const user = await register("leak");
      const res = await call("GET", "/api/v1/auth/session", { cookie: user.token });
      expect(res.text).not.toContain(user.token);
      expect(res.headers["cache-control"]).toBe("no-store");
      const row = await bed.prisma.session.findFirstOrThrow({
        where: { user: { memberships: { some: { accountId: user.accountId } } } },
      });
      expect(row.tokenHash).toBe(createHash("sha256").update(user.token).digest("hex"));
    });
  });
});

// The expiry attack's short lifetime and closed sign-up share the file's second stack. Its accounts are
// the operator's (the admin CLI), each given a password with its key through the older API and signed
// in, since sign-up is closed there. The two tests run side by side: closed sign-up is attacked while
// the expiry attack waits out its lifetimes.
describe("on a stack with closed sign-up and a short session lifetime", () => {
  const closed = useAttackStack(
    { SIGNUP: "closed", SESSION_TTL_HOURS: String(TTL_HOURS), ...ONE_CLIENT_AUTH_LIMITS },
    { inProcess: true },
  );
  const { call, updateAccount } = sessionCalls(closed);

  /** An account made by the admin CLI, with a password set through its key. */
  async function operatorsAccount(tag: string) {
    const made = await closed.stack.createAccount(uniqueEmail(tag));
    const password = `pw-${tag}-long-enough`;
    const set = await updateAccount({ key: made.api_key }, { password });
    expect(set.status, set.text).toBe(200);
    return { email: made.email, password };
  }

  /** A sign-in's session token. */
  async function signIn(account: { email: string; password: string }) {
    const res = await call("POST", "/api/v1/auth/login", {}, account);
    expect(res.status, res.text).toBe(200);
    return sessionTokenOf(res);
  }

  it.concurrent("an idle session expires; one in use slides forward and its cookie is re-issued", async () => {
    const [idleAccount, busyAccount] = await Promise.all([
      operatorsAccount("idle"),
      operatorsAccount("busy"),
    ]);
    // Each deadline is taken from that session's own request, not from both together: signed in at
    // once on a loaded machine, one could finish seconds before the other and already be near its end.
    const idle = await signIn(idleAccount);
    const between = Date.now(); // the idle session's last use was before this, the busy one's after
    const busy = await signIn(busyAccount);
    // Used at about 55% of its lifetime: renewed, so it outlives the idle one. The sleeps here are the
    // lifetime under test.
    await sleep(Math.max(0, between + TTL_MS * 0.55 - Date.now()));
    const renewing = Date.now();
    const renewed = await call("GET", "/api/v1/account", { cookie: busy });
    expect(renewed.status).toBe(200);
    expect(setCookieOf(renewed)).toMatch(
      /^kurz_session=[A-Za-z0-9_-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(sessionTokenOf(renewed)).toBe(busy);
    // Past the idle one's end, and at least 0.4 of a lifetime before the renewed one's.
    await sleep(Math.max(0, between + TTL_MS * 1.15 - Date.now()));
    const alive = await call("GET", "/api/v1/auth/session", { cookie: busy });
    expect(alive.status, alive.text).toBe(200);
    expect(Date.parse(alive.body.data.expires_at)).toBeGreaterThan(renewing + TTL_MS);
    expectV1Error(await call("GET", "/api/v1/account", { cookie: idle }), 401, "UNAUTHORIZED");
    expectV1Error(await call("GET", "/api/v1/auth/session", { cookie: idle }), 401, "UNAUTHORIZED");
    // Left alone, it ends too.
    await sleep(TTL_MS * 1.1);
    expectV1Error(await call("GET", "/api/v1/links", { cookie: busy }), 401, "UNAUTHORIZED");
  });

  it.concurrent("closed sign-up refuses registration with 403 and creates nothing; the admin CLI and sign-in still work", async () => {
    const email = uniqueEmail("closed");
    const res = await raw(closed.stack.origin, "POST", "/api/v1/auth/register", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "would be fine" }),
    });
    expectV1Error(res, 403, "FORBIDDEN");
    expect(setCookieOf(res)).toBe("");
    expect(await closed.prisma.account.count({ where: { email } })).toBe(0);
    const cli = await closed.stack.createAccount(email);
    const me = await raw(closed.stack.origin, "GET", "/api/v1/account", {
      headers: { authorization: `Bearer ${cli.api_key}` },
    });
    expect(me.status).toBe(200);
  });
});
