// Two-factor sign-in's use cases against the real Postgres and Redis, with the clock passed in and
// codes computed by otpauth for that clock: enrolment needs the password and a code, the password then
// answers a challenge and no session, a code signs in once per 30-second step (replay refused), a
// recovery code once, wrong codes spend the sign-in budget the password spends, and the password's
// success does not refill it.
import { createCipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { registerAccount } from "../src/accounts/register-account.ts";
import { resetPassword } from "../src/accounts/reset-password.ts";
import { acceptInvitation } from "../src/invitations/accept-invitation.ts";
import { hashToken, newToken } from "../src/security/tokens.ts";
import { signIn } from "../src/sessions/sign-in.ts";
import { completeTwoFactor } from "../src/two-factor/complete-two-factor.ts";
import { confirmTotp } from "../src/two-factor/confirm-totp.ts";
import { disableTotp } from "../src/two-factor/disable-totp.ts";
import { regenerateRecoveryCodes } from "../src/two-factor/regenerate-recovery-codes.ts";
import { startTotp } from "../src/two-factor/start-totp.ts";
import { totpFor } from "../src/two-factor/totp.ts";
import { twoFactorStatus } from "../src/two-factor/two-factor-status.ts";
import { SecretBox } from "../src/webhooks/secrets.ts";
import { useTwoFactorBed } from "./two-factor-bed.ts";

const PASSWORD = "quartz lantern meadow";
const T0 = new Date("2031-03-04T05:06:00.000Z"); // the start of a 30-second step
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const BUDGET = 6;

const bed = useTwoFactorBed("two-factor", { origin: "http://localhost:8080", signinsPerAccount: BUDGET });
let seq = 0;
const client = { clientHash: null, device: null };

/** A user with a confirmed authenticator app (confirmed at T0), its secret and recovery codes. */
async function enrolled() {
  const email = `two-factor-${process.pid}-${seq++}@example.com`;
  const { userId, caller } = await bed.signUp(email, PASSWORD, T0);
  const enrolment = await startTotp(bed.deps, caller, PASSWORD, T0);
  const app = totpFor(enrolment.secret);
  const { recovery_codes } = await confirmTotp(
    bed.deps,
    caller,
    app.generate({ timestamp: T0.getTime() }),
    T0,
  );
  return { email, userId, caller, enrolment, app, recoveryCodes: recovery_codes };
}

const codeAt = (app: ReturnType<typeof totpFor>, when: Date) => app.generate({ timestamp: when.getTime() });

const challengeFor = (email: string) => bed.challenge(email, PASSWORD);

describe("enrolment", () => {
  it("needs the password, answers a secret, its otpauth URI and a QR code; a code confirms it", async () => {
    const email = `enrol-${process.pid}-${seq++}@example.com`;
    const { userId, caller } = await bed.signUp(email, PASSWORD, T0);
    await expect(startTotp(bed.deps, caller, undefined, T0)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const enrolment = await startTotp(bed.deps, caller, PASSWORD, T0);
    expect(enrolment.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enrolment.otpauth_uri).toMatch(/^otpauth:\/\/totp\/Kurz:.+\?.*secret=/);
    expect(enrolment.qr_data_url).toMatch(/^data:image\/svg\+xml;base64,/);
    // Stored sealed, never in the clear.
    const stored = await bed.prisma.userTotp.findUniqueOrThrow({ where: { userId } });
    expect(stored.secretSealed).not.toContain(enrolment.secret);
    // Unconfirmed, it asks for nothing at sign-in.
    const before = await signIn(bed.deps, { email, password: PASSWORD }, client);
    expect("session" in before).toBe(true);
    await expect(confirmTotp(bed.deps, caller, "000000", T0)).rejects.toMatchObject({ code: "FORBIDDEN" });
    const app = totpFor(enrolment.secret);
    const { recovery_codes } = await confirmTotp(bed.deps, caller, codeAt(app, T0), T0);
    expect(recovery_codes).toHaveLength(10);
    for (const code of recovery_codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    expect(new Set(recovery_codes).size).toBe(10);
    const hashes = await bed.prisma.recoveryCode.findMany({ where: { userId } });
    expect(hashes.map((h) => h.codeHash).join()).not.toContain(recovery_codes[0]!.replace("-", ""));
    expect(await twoFactorStatus(bed.prisma, userId)).toEqual({
      totp: true,
      recovery_codes_left: 10,
      passkeys: 0,
      enabled: true,
    });
    await expect(startTotp(bed.deps, caller, PASSWORD, T0)).rejects.toMatchObject({ code: "CONFLICT" });
  });
});

describe("signing in with a code", () => {
  it("the password answers a challenge, not a session; a code of a later step signs in", async () => {
    const { email, app } = await enrolled();
    const challenge = await challengeFor(email);
    expect(challenge).toMatchObject({ two_factor_required: true, methods: ["totp", "recovery_code"] });
    expect(challenge.passkey_options).toBeNull();
    expect(challenge.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const signedIn = await completeTwoFactor(
      bed.deps,
      { challenge: challenge.challenge, code: codeAt(app, at(30)) },
      client,
      at(30),
    );
    expect(signedIn.session.email).toBe(email);
    expect(signedIn.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("refuses the step that confirmed the app, and any step once used (replay), even with a new challenge", async () => {
    const { email, app } = await enrolled();
    const first = await challengeFor(email);
    // The confirming code's step counts as used.
    await expect(
      completeTwoFactor(bed.deps, { challenge: first.challenge, code: codeAt(app, T0) }, client, at(10)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED", message: "The code is wrong or was already used" });
    await completeTwoFactor(
      bed.deps,
      { challenge: first.challenge, code: codeAt(app, at(30)) },
      client,
      at(31),
    );
    const second = await challengeFor(email);
    await expect(
      completeTwoFactor(bed.deps, { challenge: second.challenge, code: codeAt(app, at(30)) }, client, at(45)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    // An earlier step (still within the window of drift) is refused too.
    await expect(
      completeTwoFactor(bed.deps, { challenge: second.challenge, code: codeAt(app, at(0)) }, client, at(45)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await completeTwoFactor(
      bed.deps,
      { challenge: second.challenge, code: codeAt(app, at(60)) },
      client,
      at(61),
    );
  });

  it("a challenge works once", async () => {
    const { email, app } = await enrolled();
    const { challenge } = await challengeFor(email);
    await completeTwoFactor(bed.deps, { challenge, code: codeAt(app, at(30)) }, client, at(30));
    await expect(
      completeTwoFactor(bed.deps, { challenge, code: codeAt(app, at(60)) }, client, at(60)),
    ).rejects.toMatchObject({
      code: "UNAUTHORIZED",
      message: expect.stringMatching(/expired or is finished/),
    });
  });

  it("accepts one step of drift either side and no more", async () => {
    const { email, app } = await enrolled();
    const { challenge } = await challengeFor(email);
    await expect(
      completeTwoFactor(bed.deps, { challenge, code: codeAt(app, at(300)) }, client, at(200)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await completeTwoFactor(bed.deps, { challenge, code: codeAt(app, at(230)) }, client, at(200));
  });
});

describe("other ways the password signs in", () => {
  it("a password reset sets the password and answers the challenge, not a session", async () => {
    const { email, userId, app } = await enrolled();
    const token = newToken();
    await bed.prisma.passwordReset.create({
      data: { tokenHash: hashToken(token), userId, expiresAt: at(3600) },
    });
    const newPassword = "saffron glacier wombat";
    const outcome = await resetPassword(bed.deps, token, newPassword, null, at(10));
    expect(outcome).toMatchObject({ two_factor_required: true });
    expect("session" in outcome).toBe(false);
    expect(await bed.prisma.session.count({ where: { userId } })).toBe(0);
    const again = await signIn(bed.deps, { email, password: newPassword }, client);
    if (!("two_factor_required" in again)) throw new Error("expected a challenge");
    await completeTwoFactor(
      bed.deps,
      { challenge: again.challenge, code: codeAt(app, at(30)) },
      client,
      at(30),
    );
  });

  it("accepting an invitation with the password joins, and answers the challenge, not a session", async () => {
    const { email, userId } = await enrolled();
    const other = await registerAccount(
      bed.deps,
      { email: `inviter-${process.pid}-${seq++}@example.com`, password: PASSWORD },
      null,
    );
    const token = newToken();
    await bed.prisma.invitation.create({
      data: {
        accountId: other.session.account_id,
        email,
        role: "member",
        tokenHash: hashToken(token),
        expiresAt: at(3600),
      },
    });
    const before = await bed.prisma.session.count({ where: { userId } });
    const outcome = await acceptInvitation(bed.deps, token, PASSWORD, client, at(10));
    expect(outcome).toMatchObject({ two_factor_required: true });
    expect(await bed.prisma.session.count({ where: { userId } })).toBe(before);
    expect(
      await bed.prisma.membership.count({ where: { userId, accountId: other.session.account_id } }),
    ).toBe(1);
  });
});

describe("a changed WEBHOOK_SECRETS_KEY", () => {
  it("leaves the sealed secret unopened: no code matches (no error), and a recovery code still signs in", async () => {
    const { email, app, recoveryCodes } = await enrolled();
    const rekeyed = { ...bed.deps, totpSecrets: new SecretBox("another-two-factor-secrets-key", "totp") };
    const { challenge } = await challengeFor(email);
    await expect(
      completeTwoFactor(rekeyed, { challenge, code: codeAt(app, at(30)) }, client, at(30)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await completeTwoFactor(rekeyed, { challenge, recovery_code: recoveryCodes[0]! }, client, at(31));
  });
});

describe("recovery codes", () => {
  it("each signs in once, typed with or without the hyphen and in any case", async () => {
    const { email, recoveryCodes } = await enrolled();
    const [code] = recoveryCodes;
    const first = await challengeFor(email);
    await completeTwoFactor(
      bed.deps,
      { challenge: first.challenge, recovery_code: code!.replace("-", "").toUpperCase() },
      client,
      at(5),
    );
    const second = await challengeFor(email);
    await expect(
      completeTwoFactor(bed.deps, { challenge: second.challenge, recovery_code: code! }, client, at(6)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await completeTwoFactor(
      bed.deps,
      { challenge: second.challenge, recovery_code: recoveryCodes[1]! },
      client,
      at(7),
    );
  });

  it("new ones void the old, with the password re-entered", async () => {
    const { email, caller, recoveryCodes } = await enrolled();
    // The password given at enrolment (T0) confirmed the session for 10 minutes; after them:
    await expect(regenerateRecoveryCodes(bed.deps, caller, undefined, at(601))).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    const { recovery_codes } = await regenerateRecoveryCodes(bed.deps, caller, PASSWORD, at(1));
    const { challenge } = await challengeFor(email);
    await expect(
      completeTwoFactor(bed.deps, { challenge, recovery_code: recoveryCodes[0]! }, client, at(2)),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await completeTwoFactor(bed.deps, { challenge, recovery_code: recovery_codes[0]! }, client, at(3));
  });
});

describe("the budget", () => {
  it("wrong codes spend the account's sign-in budget, and the right password does not refill it", async () => {
    const { email, app } = await enrolled();
    const { challenge } = await challengeFor(email);
    for (let i = 0; i < BUDGET - 1; i++) {
      await expect(
        completeTwoFactor(bed.deps, { challenge, code: "000000" }, client, at(30)),
      ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    }
    // The password again: its success must not reset the count that the codes spent.
    const again = await challengeFor(email);
    await expect(
      completeTwoFactor(
        bed.deps,
        { challenge: again.challenge, recovery_code: "aaaaa-bbbbb" },
        client,
        at(30),
      ),
    ).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    const spent = completeTwoFactor(
      bed.deps,
      { challenge: again.challenge, code: codeAt(app, at(30)) },
      client,
      at(30),
    );
    await expect(spent).rejects.toMatchObject({ code: "RATE_LIMIT_EXCEEDED", status: 429 });
    await expect(signIn(bed.deps, { email, password: PASSWORD }, client)).rejects.toMatchObject({
      code: "RATE_LIMIT_EXCEEDED",
    });
  });
});

describe("removing the app", () => {
  it("needs the password re-entered; then the password alone signs in again", async () => {
    const { email, caller } = await enrolled();
    await expect(disableTotp(bed.deps, caller, undefined, at(601))).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await expect(disableTotp(bed.deps, caller, "wrong password", at(601))).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    await disableTotp(bed.deps, caller, PASSWORD, at(601));
    const outcome = await signIn(bed.deps, { email, password: PASSWORD }, client);
    expect("session" in outcome).toBe(true);
    expect(await bed.prisma.recoveryCode.count({ where: { userId: caller.userId } })).toBe(0);
    // Each change of a factor is in the person's workspaces' audit logs, with the sign-ins between.
    const events = await bed.prisma.auditEvent.findMany({
      where: { actorId: caller.userId, action: { startsWith: "two_factor." } },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.action)).toEqual(["two_factor.totp_enabled", "two_factor.totp_disabled"]);
  });
});

describe("the TOTP secret box", () => {
  it("keeps the webhook secrets' key as it was, and gives TOTP secrets another", () => {
    const passphrase = "a-high-entropy-passphrase-for-tests";
    // Sealed the way every stored webhook secret was: the key from the fixed info string.
    const key = Buffer.from(hkdfSync("sha256", passphrase, "kurz", "kurz webhook secrets v1", 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    const body = Buffer.concat([cipher.update("whsec_stored", "utf8"), cipher.final()]);
    const sealed = [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64")).join(".");
    expect(new SecretBox(passphrase).open(sealed)).toBe("whsec_stored");
    expect(() => new SecretBox(passphrase, "totp").open(sealed)).toThrow();
    const totp = new SecretBox(passphrase, "totp").seal("JBSWY3DPEHPK3PXP");
    expect(() => new SecretBox(passphrase).open(totp)).toThrow();
    expect(createHash("sha256").update(totp).digest("hex")).toHaveLength(64);
  });
});
