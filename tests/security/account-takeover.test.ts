// A stolen session cookie must not become the account (docs/security.md, "Sessions and CSRF"). With the
// cookie alone (its CSRF token is one GET away), an attacker who could mint an API key, which outlives
// sign-out and password changes, could then call the older API's account update with it to change the
// e-mail and password and lock the owner out for good. So minting a key from a session needs the
// password re-entered (in the request, or confirmed through /auth/confirm within 10 minutes; signing in
// does not count), and a password change can revoke every key. Time is moved by rewriting the stored
// confirmation moment, so nothing here sleeps.
import { describe, expect, it } from "vitest";
import {
  type Caller,
  expectLegacyError,
  expectV1Error,
  type Owner,
  sessionTokenOf,
  uniqueEmail,
  useSessionStack,
} from "./attack.ts";

const PER_ACCOUNT = 4;
const MINUTE = 60_000;

const { bed, call, register, updateAccount } = useSessionStack(
  { SIGNIN_ATTEMPTS_PER_ACCOUNT: String(PER_ACCOUNT), SIGNIN_ATTEMPTS_PER_CLIENT: "1000" },
  { inProcess: true },
);

/** A fresh sign-in, as the owner makes it and as a cookie stolen right after it gives the attacker. */
async function signIn(owner: Owner): Promise<Required<Pick<Caller, "cookie" | "csrf">>> {
  const res = await call("POST", "/api/v1/auth/login", {}, { email: owner.email, password: owner.password });
  expect(res.status, res.text).toBe(200);
  return { cookie: sessionTokenOf(res), csrf: res.body.data.session.csrf_token };
}

/** What the attacker holds: the cookie, and the CSRF token read back with it. */
async function steal(session: { cookie: string }): Promise<Caller> {
  const res = await call("GET", "/api/v1/auth/session", { cookie: session.cookie });
  expect(res.status, res.text).toBe(200);
  return { cookie: session.cookie, csrf: res.body.data.csrf_token };
}

/** The account's credentials as stored: e-mail, password hash and every key (revoked ones included). */
async function credentials(accountId: string) {
  const [account, keys] = await Promise.all([
    bed.prisma.user.findFirstOrThrow({
      where: { memberships: { some: { accountId, role: "owner" } } },
      select: { email: true, passwordHash: true },
    }),
    bed.prisma.apiKey.findMany({
      where: { accountId },
      orderBy: { id: "asc" },
      select: { id: true, revokedAt: true },
    }),
  ]);
  return JSON.stringify({ account, keys });
}

const mint = (who: Caller, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/account/keys", who, { name: "attacker's key", ...extra });

/** Moves this session's password confirmation `ms` into the past, as if that much time had passed. */
async function ageConfirmation(cookie: string, ms: number) {
  const rows = await bed.prisma.$executeRaw`
    UPDATE sessions SET confirmed_at = confirmed_at - make_interval(secs => ${ms / 1000})
    WHERE token_hash = encode(sha256(convert_to(${cookie}, 'UTF8')), 'hex') AND confirmed_at IS NOT NULL`;
  expect(rows).toBe(1);
}

describe("a stolen session cookie", () => {
  it("cannot mint a key, even taken right after sign-in, so the older API's update is out of reach", async () => {
    const owner = await register("takeover");
    const attacker = await steal(await signIn(owner));
    const before = await credentials(owner.accountId);

    const refused = await mint(attacker);
    expectV1Error(refused, 403, "FORBIDDEN");
    expect(refused.body.error.message).toMatch(/current_password.*\/api\/v1\/auth\/confirm/);
    expect(refused.text).not.toMatch(/kurz_live_/);
    expectV1Error(await mint(attacker, { current_password: "a guess at it" }), 403, "FORBIDDEN");
    // Nor by confirming a guess first.
    expectV1Error(
      await call("POST", "/api/v1/auth/confirm", attacker, { current_password: "another guess" }),
      403,
      "FORBIDDEN",
    );
    expectV1Error(await mint(attacker), 403, "FORBIDDEN");
    expect(await credentials(owner.accountId)).toBe(before);

    // The rest of the chain, with the only credential the attacker holds: the cookie is no key there.
    expectLegacyError(
      await updateAccount(attacker, {
        email: uniqueEmail("attacker"),
        password: "the attacker's now",
      }),
      401,
    );
    expect(await credentials(owner.accountId)).toBe(before);
    // The owner still signs in with their own password.
    await signIn(owner);
  });

  it("a wrong password, in the request or at /auth/confirm, spends the account's sign-in budget", async () => {
    const owner = await register("guess");
    const attacker = await steal(await signIn(owner));
    for (let i = 0; i < PER_ACCOUNT; i++) {
      const guess = `guess number ${i}`;
      const res =
        i % 2 === 0
          ? await mint(attacker, { current_password: guess })
          : await call("POST", "/api/v1/auth/confirm", attacker, { current_password: guess });
      expectV1Error(res, 403, "FORBIDDEN");
    }
    // Spent: even the right password is refused now, and so is signing in.
    expectV1Error(await mint(attacker, { current_password: owner.password }), 429, "RATE_LIMIT_EXCEEDED");
    expectV1Error(
      await call("POST", "/api/v1/auth/confirm", attacker, { current_password: owner.password }),
      429,
      "RATE_LIMIT_EXCEEDED",
    );
    expect(await bed.prisma.apiKey.count({ where: { accountId: owner.accountId } })).toBe(1);
  });

  it("a confirmation lasts 10 minutes, in its own session only", async () => {
    const owner = await register("sudo");
    const mine = await signIn(owner);
    const other = await steal(await signIn(owner));

    const confirmed = await call("POST", "/api/v1/auth/confirm", mine, { current_password: owner.password });
    expect(confirmed.status, confirmed.text).toBe(200);
    const until = Date.parse(confirmed.body.data.confirmed_until);
    expect(until - Date.now()).toBeGreaterThan(9 * MINUTE);
    expect(until - Date.now()).toBeLessThanOrEqual(10 * MINUTE);

    const made = await mint(mine);
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.key).toMatch(/^kurz_live_[A-Za-z0-9]{32}$/);
    // Another session of the same account has confirmed nothing.
    expectV1Error(await mint(other), 403, "FORBIDDEN");

    // Nine minutes later it still holds; eleven minutes later it has lapsed.
    await ageConfirmation(mine.cookie, 9 * MINUTE);
    expect((await mint(mine)).status).toBe(201);
    await ageConfirmation(mine.cookie, 2 * MINUTE);
    expectV1Error(await mint(mine), 403, "FORBIDDEN");

    // The password in the request works without a confirmation, and starts a new one.
    expect((await mint(mine, { current_password: owner.password })).status).toBe(201);
    expect((await mint(mine)).status).toBe(201);
    // Sessions are not the only way: /auth/confirm refuses a key (a key needs no confirmation).
    expectV1Error(
      await call("POST", "/api/v1/auth/confirm", { key: owner.key }, { current_password: owner.password }),
      401,
      "UNAUTHORIZED",
    );
  });

  it("a password change can revoke every key, and ends every other session", async () => {
    const owner = await register("revoke");
    const mine = await signIn(owner);
    const stolen = await steal(await signIn(owner));
    // What a thief might already hold: a key minted while the session was confirmed.
    await call("POST", "/api/v1/auth/confirm", stolen, { current_password: owner.password });
    const theirs = (await mint(stolen)).body.data.key as string;
    expect((await call("GET", "/api/v1/account", { key: theirs })).status).toBe(200);

    const changed = await call("POST", "/api/v1/account/password", mine, {
      current_password: owner.password,
      new_password: "a fresh password",
      revoke_keys: true,
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.data).toEqual({ changed: true, revoked_keys: 2 });
    for (const key of [theirs, owner.key]) {
      expectV1Error(await call("GET", "/api/v1/account", { key }), 401, "KEY_REVOKED");
      expectLegacyError(await updateAccount({ key }, { password: "taken over" }), 401);
    }
    expectV1Error(await call("GET", "/api/v1/account", stolen), 401, "UNAUTHORIZED");
    expect((await call("GET", "/api/v1/account", mine)).status).toBe(200);
    expect(await bed.prisma.apiKey.count({ where: { accountId: owner.accountId, revokedAt: null } })).toBe(0);
  });

  it("without revoke_keys the keys stay, as they do through a sign-out", async () => {
    const owner = await register("keep");
    const mine = await signIn(owner);
    const changed = await call("POST", "/api/v1/account/password", mine, {
      current_password: owner.password,
      new_password: "another fresh password",
    });
    expect(changed.body.data).toEqual({ changed: true, revoked_keys: 0 });
    expect((await call("GET", "/api/v1/account", { key: owner.key })).status).toBe(200);
  });
});

describe("a key", () => {
  it("mints keys and changes e-mail and password through the older API as documented, without re-entering anything", async () => {
    const owner = await register("key");
    const made = await mint({ key: owner.key });
    expect(made.status, made.text).toBe(201);
    // A password a key sends anyway is checked, never ignored.
    expectV1Error(await mint({ key: owner.key }, { current_password: "not it" }), 403, "FORBIDDEN");
    const email = uniqueEmail("key-moved");
    const updated = await updateAccount({ key: owner.key }, { email, password: "set by a key" });
    expect(updated.status, updated.text).toBe(200);
    const res = await call("POST", "/api/v1/auth/login", {}, { email, password: "set by a key" });
    expect(res.status, res.text).toBe(200);
  });
});
