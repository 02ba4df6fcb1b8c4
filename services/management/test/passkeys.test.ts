// Passkeys' use cases against the real Postgres and Redis, with a software authenticator: registration
// needs the password and answers only this session's options, once; a passkey answers the sign-in's
// second step and signs in alone (with user verification only); an assertion is not taken twice, not
// from a cloned authenticator (its counter going back), and not for another user.
import { describe, expect, it } from "vitest";
import { issueSession } from "../src/sessions/sessions.ts";
import { signIn } from "../src/sessions/sign-in.ts";
import { completeTwoFactor } from "../src/two-factor/complete-two-factor.ts";
import { passkeySignIn, passkeySignInOptions } from "../src/two-factor/passkey-sign-in.ts";
import {
  deletePasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  registerPasskey,
} from "../src/two-factor/passkeys.ts";
import { SoftwareAuthenticator } from "./software-authenticator.ts";
import { useTwoFactorBed } from "./two-factor-bed.ts";

const PASSWORD = "quartz lantern meadow";
const ORIGIN = "http://localhost:8080";

const bed = useTwoFactorBed("passkeys", { origin: ORIGIN, signinsPerAccount: 100 });
let seq = 0;
const client = { clientHash: null, device: null };

/** A user with a passkey on `authenticator`; its session's caller. */
async function withPasskey(authenticator = new SoftwareAuthenticator("localhost", ORIGIN)) {
  const email = `passkey-${process.pid}-${seq++}@example.com`;
  const { userId, caller } = await bed.signUp(email, PASSWORD);
  const { options } = await passkeyRegistrationOptions(bed.deps, caller, PASSWORD);
  expect(options).toMatchObject({
    rp: { id: "localhost" },
    authenticatorSelection: { residentKey: "required" },
  });
  const passkey = await registerPasskey(bed.deps, caller, {
    response: authenticator.register(options),
    name: "Laptop",
  });
  return { email, userId, caller, authenticator, passkey };
}

const challengeFor = (email: string) => bed.challenge(email, PASSWORD);

describe("registering a passkey", () => {
  it("needs the password, and answers this session's options once", async () => {
    const { caller, authenticator, passkey, userId } = await withPasskey();
    expect(passkey).toMatchObject({ id: authenticator.id, name: "Laptop", last_used_at: null });
    expect(await listPasskeys(bed.deps, userId)).toHaveLength(1);
    const { row } = await issueSession(bed.prisma, userId, 3_600_000);
    const fresh = { userId, sessionId: row.id, clientHash: null };
    await expect(passkeyRegistrationOptions(bed.deps, fresh, undefined)).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    // Options made for one session do not register through another, nor twice.
    const { options } = await passkeyRegistrationOptions(bed.deps, caller, PASSWORD);
    const another = new SoftwareAuthenticator("localhost", ORIGIN);
    await expect(
      registerPasskey(bed.deps, fresh, { response: another.register(options) }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await registerPasskey(bed.deps, caller, { response: another.register(options) });
    await expect(
      registerPasskey(bed.deps, caller, { response: another.register(options) }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("refuses a credential made for another site", async () => {
    const { caller } = await withPasskey();
    const { options } = await passkeyRegistrationOptions(bed.deps, caller, PASSWORD);
    const phishing = new SoftwareAuthenticator("localhost", "http://evil.example");
    await expect(
      registerPasskey(bed.deps, caller, { response: phishing.register(options) }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });
});

describe("a passkey as the second factor", () => {
  it("answers the password's challenge once; a copy of the assertion does not answer another", async () => {
    const { email, authenticator } = await withPasskey();
    const first = await challengeFor(email);
    expect(first.methods).toEqual(["passkey"]);
    expect(first.passkey_options).toMatchObject({ allowCredentials: [{ id: authenticator.id }] });
    const assertion = authenticator.assert(first.passkey_options!);
    const signedIn = await completeTwoFactor(
      bed.deps,
      { challenge: first.challenge, passkey: assertion },
      client,
    );
    expect(signedIn.session.email).toBe(email);
    const second = await challengeFor(email);
    await expect(
      completeTwoFactor(bed.deps, { challenge: second.challenge, passkey: assertion }, client),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("refuses a cloned authenticator (its counter goes back) and another user's passkey", async () => {
    const { email, authenticator } = await withPasskey();
    const first = await challengeFor(email);
    await completeTwoFactor(
      bed.deps,
      { challenge: first.challenge, passkey: authenticator.assert(first.passkey_options!, { counter: 10 }) },
      client,
    );
    const second = await challengeFor(email);
    await expect(
      completeTwoFactor(
        bed.deps,
        {
          challenge: second.challenge,
          passkey: authenticator.assert(second.passkey_options!, { counter: 5 }),
        },
        client,
      ),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const other = await withPasskey();
    await expect(
      completeTwoFactor(
        bed.deps,
        { challenge: second.challenge, passkey: other.authenticator.assert(second.passkey_options!) },
        client,
      ),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("signing in with a passkey alone", () => {
  it("signs in with user verification, once per options; not without verification", async () => {
    const { email, authenticator } = await withPasskey();
    const started = await passkeySignInOptions(bed.deps);
    expect(started.options).toMatchObject({ rpId: "localhost", userVerification: "required" });
    const assertion = authenticator.assert(started.options);
    const signedIn = await passkeySignIn(
      bed.deps,
      { challenge: started.challenge, response: assertion },
      client,
    );
    expect(signedIn.session.email).toBe(email);
    await expect(
      passkeySignIn(bed.deps, { challenge: started.challenge, response: assertion }, client),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const again = await passkeySignInOptions(bed.deps);
    await expect(
      passkeySignIn(
        bed.deps,
        {
          challenge: again.challenge,
          response: authenticator.assert(again.options, { userVerified: false }),
        },
        client,
      ),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });

  it("a removed passkey signs in no more, and the password alone then does", async () => {
    const { email, authenticator, caller, passkey } = await withPasskey();
    await deletePasskey(bed.deps, caller, passkey.id, PASSWORD);
    const started = await passkeySignInOptions(bed.deps);
    await expect(
      passkeySignIn(
        bed.deps,
        { challenge: started.challenge, response: authenticator.assert(started.options) },
        client,
      ),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const outcome = await signIn(bed.deps, { email, password: PASSWORD }, client);
    expect("session" in outcome).toBe(true);
  });
});
