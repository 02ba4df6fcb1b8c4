// Weak account passwords (docs/security.md, "Sessions and CSRF"): every path that sets an account
// password (sign-up, the v1 password change, the older API's account update) refuses one a guesser
// would try first, says why in its envelope, and changes nothing: no account, no new hash, no session
// ended, the old password still signs in. Link passwords are another rule (redirect.test.ts).
import { passwordStrength } from "@kurz/contracts/password-strength";
import { describe, expect, it } from "vitest";
import {
  expectLegacyError,
  expectV1Error,
  type RawResponse,
  raw,
  sessionTokenOf,
  uniqueEmail,
  useSessionStack,
} from "./attack.ts";

const sessions = useSessionStack({}, { inProcess: true });
const { bed, call, updateAccount } = sessions;
/** An owner whose password is strong, so that only the weak one a test sets is refused. */
const register = (tag: string) => sessions.register(tag, "plum kayak lantern");

/** What a guesser tries first: the three, the most common ones, and the person's own name. */
const WEAK: { password: string; why: RegExp }[] = [
  { password: "        ", why: /repeated character/ },
  { password: "12345678", why: /most used passwords/ },
  { password: "aaaaaaaa", why: /repeated character/ },
  { password: "password1", why: /common/ },
  { password: "qwertyuiop", why: /most used passwords/ },
  { password: "P@ssw0rd!", why: /common/ },
];
/** The address's name run together ("zebraquartz4711lq2k1"): fine for anyone else, not for its owner. */
function ownName(email: string): string {
  const password = email.split("@")[0]!.replace(/[^a-z0-9]/g, "");
  expect(passwordStrength(password, { email: "someone@else.example" }).acceptable, password).toBe(true);
  return password;
}

/** The v1 refusal: VALIDATION_ERROR whose details name the field and give the reason. */
function expectWeak(res: RawResponse, field: string, why: RegExp) {
  expectV1Error(res, 400, "VALIDATION_ERROR");
  expect(Object.keys(res.body.error.details).sort(), res.text).toEqual(["_errors", field]);
  const [reason] = res.body.error.details[field]._errors;
  expect(reason, res.text).toMatch(/^This password is too weak: /);
  expect(reason, res.text).toMatch(why);
  expect(res.body.error.message).toContain(`${field}: ${reason}`);
}

/**
 * An account as the attacks could change it: its row, sessions and keys. When a key was last used is
 * left out: a refused request still uses the key, and the gateway writes the time in the background,
 * whenever the machine gets to it.
 */
async function footprint(accountId: string) {
  const [account, sessions, keys] = await Promise.all([
    bed.prisma.account.findUniqueOrThrow({ where: { id: accountId } }),
    bed.prisma.session.findMany({
      where: { user: { memberships: { some: { accountId: accountId } } } },
      orderBy: { id: "asc" },
    }),
    bed.prisma.apiKey.findMany({ where: { accountId }, orderBy: { id: "asc" }, omit: { lastUsedAt: true } }),
  ]);
  return { account, sessions, keys };
}

async function signsIn(email: string, password: string) {
  return (await call("POST", "/api/v1/auth/login", {}, { email, password })).status === 200;
}

describe("weak account passwords", () => {
  it("sign-up refuses each with the reason, and creates no account and no session", async () => {
    const accountsBefore = await bed.prisma.account.count();
    const sessionsBefore = await bed.prisma.session.count();
    for (const { password, why } of WEAK) {
      const res = await call("POST", "/api/v1/auth/register", {}, { email: uniqueEmail("weak"), password });
      expectWeak(res, "password", why);
      expect(res.headers["set-cookie"]).toBeUndefined();
    }
    const email = uniqueEmail("zebraquartz");
    expectWeak(
      await call("POST", "/api/v1/auth/register", {}, { email, password: ownName(email) }),
      "password",
      /made from your e-mail address/,
    );
    expect(await bed.prisma.account.count()).toBe(accountsBefore);
    expect(await bed.prisma.session.count()).toBe(sessionsBefore);
    // The stack's first check builds the dictionaries (about 0.4 s of CPU, far longer on a loaded host).
  }, 180_000);

  it("the v1 password change refuses each; the password, the sessions and the keys stay", async () => {
    const user = await register("pwchange");
    const other = sessionTokenOf(
      await call("POST", "/api/v1/auth/login", {}, { email: user.email, password: user.password }),
    );
    const before = await footprint(user.accountId);
    for (const { password, why } of [...WEAK, { password: ownName(user.email), why: /e-mail address/ }]) {
      const res = await call(
        "POST",
        "/api/v1/account/password",
        { cookie: user.token, csrf: user.csrf },
        { current_password: user.password, new_password: password },
      );
      expectWeak(res, "new_password", why);
    }
    expect(await footprint(user.accountId)).toEqual(before);
    expect(await signsIn(user.email, user.password)).toBe(true);
    for (const token of [user.token, other]) {
      const session = await raw(bed.stack.origin, "GET", "/api/v1/auth/session", {
        headers: { cookie: `kurz_session=${token}` },
      });
      expect(session.status).toBe(200);
    }
  });

  it("the older API's account update refuses each with error 1 and the reason; nothing changes", async () => {
    const user = await register("legacy");
    const before = await footprint(user.accountId);
    for (const { password, why } of WEAK) {
      const res = await updateAccount({ key: user.key }, { password });
      expectLegacyError(res, 400);
      expect(res.body.message, res.text).toMatch(/^Invalid request: password: This password is too weak: /);
      expect(res.body.message, res.text).toMatch(why);
    }
    // A new address and a password made of it, in one request: neither is applied.
    const renamed = uniqueEmail("zebraquartz");
    const both = await updateAccount({ key: user.key }, { email: renamed, password: ownName(renamed) });
    expectLegacyError(both, 400);
    expect(both.body.message).toMatch(/made from your e-mail address/);
    // The account's own address counts too when only the password changes.
    const own = await updateAccount({ key: user.key }, { password: ownName(user.email) });
    expectLegacyError(own, 400);
    expect(own.body.message).toMatch(/made from your e-mail address/);

    expect(await footprint(user.accountId)).toEqual(before);
    expect(await signsIn(user.email, user.password)).toBe(true);
    // A strong one is still accepted, on both APIs.
    const ok = await updateAccount({ key: user.key }, { password: "violet harbour 1987 tram" });
    expect(ok.status, ok.text).toBe(200);
    expect(await signsIn(user.email, "violet harbour 1987 tram")).toBe(true);
  });
});
