// Attacks on two-factor sign-in (docs/security.md, "Two-factor sign-in"): replaying a TOTP code,
// guessing codes and recovery codes (the account's sign-in budget, which the right password does not
// refill), a challenge used twice, forged or aimed at another user, a session without a second factor in
// a workspace that requires one (and its keys, on both API generations), removing a factor or adding
// a passkey without the password, and passkey sign-in with made-up answers.
import { Secret, TOTP } from "otpauth";
import { describe, expect, it } from "vitest";
import {
  type Caller,
  expectLegacyError,
  expectV1Error,
  type Owner,
  sessionTokenOf,
  setCookieOf,
  useSessionStack,
} from "./attack.ts";
import { accept, invitationToken, invite, sessionOf } from "./team.ts";

const PER_ACCOUNT = 5;
const { bed, call, register } = useSessionStack({
  SIGNIN_ATTEMPTS_PER_ACCOUNT: String(PER_ACCOUNT),
  SIGNIN_ATTEMPTS_PER_CLIENT: "1000",
});

const codeAt = (secret: string, offsetSeconds = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + offsetSeconds * 1000,
  });

const session = (owner: Owner): Caller => ({ cookie: owner.token, csrf: owner.csrf });

/** An account with a confirmed authenticator app (the current step used), its secret and recovery codes. */
async function enrolled(tag: string) {
  const owner = await register(tag);
  const started = await call("POST", "/api/v1/auth/two-factor/totp", session(owner), {
    current_password: owner.password,
  });
  expect(started.status, started.text).toBe(201);
  const secret: string = started.body.data.secret;
  const confirmingCode = codeAt(secret);
  const confirmed = await call("POST", "/api/v1/auth/two-factor/totp/confirm", session(owner), {
    code: confirmingCode,
  });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { owner, secret, confirmingCode, recoveryCodes: confirmed.body.data.recovery_codes as string[] };
}

const login = (owner: Owner) =>
  call("POST", "/api/v1/auth/login", {}, { email: owner.email, password: owner.password });

async function challengeOf(owner: Owner): Promise<string> {
  const res = await login(owner);
  expect(res.status, res.text).toBe(200);
  expect(res.body.data.two_factor_required).toBe(true);
  return res.body.data.challenge;
}

const finish = (body: Record<string, unknown>) => call("POST", "/api/v1/auth/login/two-factor", {}, body);

describe("the password alone", () => {
  it("answers a challenge and sets no session cookie for a user with a second factor", async () => {
    const { owner } = await enrolled("2fa-nocookie");
    const res = await login(owner);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ two_factor_required: true, methods: ["totp", "recovery_code"] });
    expect(res.body.data.session).toBeUndefined();
    expect(sessionTokenOf(res)).toBe("");
    expect(setCookieOf(res)).not.toMatch(/kurz_session/);
  });
});

describe("replay", () => {
  it("a TOTP code that signed in once is refused after, with a new challenge too", async () => {
    const { owner, secret } = await enrolled("2fa-replay");
    // The confirming code's step is used already; the next step is within the accepted drift.
    const code = codeAt(secret, 30);
    const first = await finish({ challenge: await challengeOf(owner), code });
    expect(first.status, first.text).toBe(200);
    expect(sessionTokenOf(first)).not.toBe("");
    const again = await finish({ challenge: await challengeOf(owner), code });
    expectV1Error(again, 401, "UNAUTHORIZED");
    expect(sessionTokenOf(again)).toBe("");
  });

  it("the code that confirmed the app does not sign in", async () => {
    const { owner, confirmingCode } = await enrolled("2fa-confirm-replay");
    const res = await finish({ challenge: await challengeOf(owner), code: confirmingCode });
    expectV1Error(res, 401, "UNAUTHORIZED");
  });

  it("a recovery code works once", async () => {
    const { owner, recoveryCodes } = await enrolled("2fa-recovery-once");
    const first = await finish({ challenge: await challengeOf(owner), recovery_code: recoveryCodes[0] });
    expect(first.status, first.text).toBe(200);
    const again = await finish({ challenge: await challengeOf(owner), recovery_code: recoveryCodes[0] });
    expectV1Error(again, 401, "UNAUTHORIZED");
  });
});

describe("guessing", () => {
  for (const kind of ["code", "recovery_code"] as const) {
    it(`${kind}s are budgeted like passwords: 429 with Retry-After, then even the right one waits`, async () => {
      const { owner, secret, recoveryCodes } = await enrolled(`2fa-guess-${kind}`);
      const challenge = await challengeOf(owner);
      const wrong = kind === "code" ? "000000" : "aaaaa-00000";
      for (let i = 0; i < PER_ACCOUNT; i++) {
        expectV1Error(await finish({ challenge, [kind]: wrong }), 401, "UNAUTHORIZED");
      }
      const right = kind === "code" ? codeAt(secret, 30) : recoveryCodes[0];
      const spent = await finish({ challenge, [kind]: right });
      expectV1Error(spent, 429, "RATE_LIMIT_EXCEEDED");
      expect(Number(spent.headers["retry-after"])).toBeGreaterThan(0);
      expect(sessionTokenOf(spent)).toBe("");
    });
  }

  it("the right password does not refill what wrong codes spent", async () => {
    const { owner } = await enrolled("2fa-refill");
    for (let i = 0; i < PER_ACCOUNT - 1; i++) {
      expectV1Error(
        await finish({ challenge: await challengeOf(owner), code: "000000" }),
        401,
        "UNAUTHORIZED",
      );
    }
    const challenge = await challengeOf(owner);
    expectV1Error(await finish({ challenge, code: "000000" }), 401, "UNAUTHORIZED");
    expectV1Error(await login(owner), 429, "RATE_LIMIT_EXCEEDED");
  });

  it("malformed codes are refused before any check", async () => {
    const { owner } = await enrolled("2fa-malformed");
    const challenge = await challengeOf(owner);
    expectV1Error(await finish({ challenge, code: "12345" }), 400, "VALIDATION_ERROR");
    expectV1Error(
      await finish({ challenge, code: "123456", recovery_code: "aaaaa-bbbbb" }),
      400,
      "VALIDATION_ERROR",
    );
    expectV1Error(await finish({ challenge }), 400, "VALIDATION_ERROR");
  });
});

describe("the challenge", () => {
  it("works once", async () => {
    const { owner, recoveryCodes } = await enrolled("2fa-challenge-once");
    const challenge = await challengeOf(owner);
    expect((await finish({ challenge, recovery_code: recoveryCodes[0] })).status).toBe(200);
    expectV1Error(await finish({ challenge, recovery_code: recoveryCodes[1] }), 401, "UNAUTHORIZED");
  });

  it("signs in only its own user: another user's codes do not fit, and a made-up one is unknown", async () => {
    const victim = await enrolled("2fa-victim");
    const attacker = await enrolled("2fa-attacker");
    const challenge = await challengeOf(victim.owner);
    const res = await finish({ challenge, recovery_code: attacker.recoveryCodes[0] });
    expectV1Error(res, 401, "UNAUTHORIZED");
    expectV1Error(await finish({ challenge, code: codeAt(attacker.secret, 30) }), 401, "UNAUTHORIZED");
    // The attacker's own challenge with the victim's code does not sign in as the victim either.
    const own = await challengeOf(attacker.owner);
    const crossed = await finish({ challenge: own, recovery_code: victim.recoveryCodes[0] });
    expectV1Error(crossed, 401, "UNAUTHORIZED");
    expectV1Error(
      await finish({ challenge: "A".repeat(43), recovery_code: victim.recoveryCodes[1] }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("changing factors needs the password", () => {
  it("removing the app, new recovery codes, passkey options and removing a passkey: 403 without it", async () => {
    const { owner } = await enrolled("2fa-sudo");
    // A fresh sign-in: a session that confirmed nothing (signing in is no confirmation).
    const code = await freshRecoveryCode(owner);
    const signedIn = await finish({ challenge: await challengeOf(owner), recovery_code: code });
    expect(signedIn.status, signedIn.text).toBe(200);
    const fresh: Caller = sessionOf(signedIn);
    expectV1Error(await call("DELETE", "/api/v1/auth/two-factor/totp", fresh), 403, "FORBIDDEN");
    expectV1Error(await call("POST", "/api/v1/auth/two-factor/recovery-codes", fresh, {}), 403, "FORBIDDEN");
    expectV1Error(await call("POST", "/api/v1/auth/passkeys/options", fresh, {}), 403, "FORBIDDEN");
    expectV1Error(await call("POST", "/api/v1/auth/two-factor/totp", fresh, {}), 403, "FORBIDDEN");
    expectV1Error(await call("DELETE", `/api/v1/auth/passkeys/${"A".repeat(22)}`, fresh), 403, "FORBIDDEN");
    expectV1Error(
      await call("DELETE", "/api/v1/auth/two-factor/totp", fresh, { current_password: "not the password" }),
      403,
      "FORBIDDEN",
    );
    // Still on: the password asks for the second factor.
    expect((await login(owner)).body.data.two_factor_required).toBe(true);
  });

  it("the factor routes are the user's own: a key cannot call them", async () => {
    const owner = await register("2fa-key");
    for (const [method, path] of [
      ["GET", "/api/v1/auth/two-factor"],
      ["POST", "/api/v1/auth/two-factor/totp"],
      ["GET", "/api/v1/auth/passkeys"],
      ["POST", "/api/v1/auth/passkeys/options"],
    ] as const) {
      expectV1Error(
        await call(method, path, { key: owner.key }, method === "POST" ? {} : undefined),
        401,
        "UNAUTHORIZED",
      );
    }
  });
});

describe("passkeys", () => {
  it("registration without its options, and made-up assertions, are refused", async () => {
    const owner = await register("2fa-passkey");
    const credential = {
      id: "AAAAAAAAAAAAAAAAAAAAAA",
      rawId: "AAAAAAAAAAAAAAAAAAAAAA",
      type: "public-key",
      response: {},
    };
    expectV1Error(
      await call("POST", "/api/v1/auth/passkeys", session(owner), { response: credential }),
      400,
      "BAD_REQUEST",
    );
    const options = await call("POST", "/api/v1/auth/login/passkey/options", {});
    expect(options.status, options.text).toBe(200);
    const { challenge } = options.body.data;
    expectV1Error(
      await call("POST", "/api/v1/auth/login/passkey", {}, { challenge, response: credential }),
      401,
      "UNAUTHORIZED",
    );
    // The options work once, even after a failure.
    expectV1Error(
      await call("POST", "/api/v1/auth/login/passkey", {}, { challenge, response: credential }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("a workspace that requires two-factor sign-in", () => {
  it("holds back a member without a second factor, their session and their keys, on both APIs, until they enrol", async () => {
    const { owner } = await enrolled("2fa-require-owner");
    const ownerSession = session(owner);
    // An owner turns it on (an admin may not).
    const created = await invite(
      bed.stack.origin,
      ownerSession,
      owner.accountId,
      `${owner.email}.admin.test`,
      "admin",
    );
    expect(created.status, created.text).toBe(201);
    const adminAccepted = await accept(bed.stack.origin, invitationToken(created), "pw-admin-long-enough-1");
    expect(adminAccepted.status, adminAccepted.text).toBe(200);
    const admin = sessionOf(adminAccepted);
    const adminPassword = "pw-admin-long-enough-1";
    // A key the admin made before the requirement.
    const adminKey = await call("POST", "/api/v1/account/keys", admin, {
      name: "admin's",
      current_password: adminPassword,
    });
    expect(adminKey.status, adminKey.text).toBe(201);
    const key = adminKey.body.data.key as string;
    expect((await call("GET", "/api/v1/links", { key })).status).toBe(200);
    expectV1Error(
      await call("PATCH", `/api/v1/workspaces/${owner.accountId}`, admin, { require_two_factor: true }),
      403,
      "FORBIDDEN",
    );
    const on = await call("PATCH", `/api/v1/workspaces/${owner.accountId}`, ownerSession, {
      require_two_factor: true,
    });
    expect(on.status, on.text).toBe(200);
    expect(on.body.data.require_two_factor).toBe(true);

    // The admin has no second factor: the workspace's routes refuse them, what lets them enrol answers.
    expectV1Error(await call("GET", "/api/v1/links", admin), 403, "TWO_FACTOR_REQUIRED");
    expectV1Error(
      await call("GET", `/api/v1/workspaces/${owner.accountId}/members`, admin),
      403,
      "TWO_FACTOR_REQUIRED",
    );
    const sessionRead = await call("GET", "/api/v1/auth/session", admin);
    expect(sessionRead.status).toBe(200);
    expect(sessionRead.body.data.two_factor).toBe(false);
    expect(sessionRead.body.data.workspaces[0].require_two_factor).toBe(true);

    // The admin's key: refused too, on the v1 API and the older one (in its own envelope).
    expectV1Error(await call("GET", "/api/v1/links", { key }), 403, "TWO_FACTOR_REQUIRED");
    expectLegacyError(await call("GET", "/api/domains", { key }), 403);
    // Nor can they make a new key.
    expectV1Error(
      await call("POST", "/api/v1/account/keys", admin, { name: "another", current_password: adminPassword }),
      403,
      "TWO_FACTOR_REQUIRED",
    );

    // The owner, enrolled, is not held back.
    expect((await call("GET", "/api/v1/links", ownerSession)).status).toBe(200);

    // The admin enrols: then they are let in.
    const started = await call("POST", "/api/v1/auth/two-factor/totp", admin, {
      current_password: adminPassword,
    });
    expect(started.status, started.text).toBe(201);
    const confirmed = await call("POST", "/api/v1/auth/two-factor/totp/confirm", admin, {
      code: codeAt(started.body.data.secret),
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect((await call("GET", "/api/v1/links", admin)).status).toBe(200);
    expect((await call("GET", "/api/v1/links", { key })).status).toBe(200);
  });

  it("refuses the keys of a creator without a second factor, in each API's envelope", async () => {
    const owner = await register("2fa-require-keys");
    const ownerSession = session(owner);
    // The sign-up key's creator (the owner) has no second factor yet; it works.
    expect((await call("GET", "/api/v1/links", { key: owner.key })).status).toBe(200);
    // The owner cannot require what they do not have.
    expectV1Error(
      await call("PATCH", `/api/v1/workspaces/${owner.accountId}`, ownerSession, {
        require_two_factor: true,
      }),
      409,
      "CONFLICT",
    );
    // Made to hold: a direct write, as if the owner had removed their factor after turning it on.
    await bed.prisma.account.update({ where: { id: owner.accountId }, data: { requireTwoFactor: true } });
    const keys = await bed.redis.keys(`${bed.stack.env.REDIS_KEY_PREFIX}apikey:*`);
    if (keys.length > 0)
      await bed.redis.del(...keys.map((k) => k.slice(bed.stack.env.REDIS_KEY_PREFIX!.length)));
    expectV1Error(await call("GET", "/api/v1/links", { key: owner.key }), 403, "TWO_FACTOR_REQUIRED");
    expectLegacyError(await call("GET", "/api/domains", { key: owner.key }), 403);
  });
});

/** A fresh recovery code of `owner` (new set, with the password). */
async function freshRecoveryCode(owner: Owner): Promise<string> {
  const res = await call("POST", "/api/v1/auth/two-factor/recovery-codes", session(owner), {
    current_password: owner.password,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.recovery_codes[0];
}
