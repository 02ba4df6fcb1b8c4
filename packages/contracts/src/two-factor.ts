// Two-factor sign-in (docs/api.md "Two-factor sign-in", docs/security.md "Two-factor sign-in"): an
// authenticator app (TOTP, RFC 6238) with one-time recovery codes, and passkeys (WebAuthn). A user with
// either signs in with the password and then a second factor: the password answers a short-lived
// challenge instead of a session, and POST /api/v1/auth/login/two-factor trades it with a code, a recovery
// code or a passkey's assertion for the session. A passkey also signs in on its own, without a password.
// The WebAuthn options and responses are the W3C JSON forms (PublicKeyCredential.toJSON), passed
// through as objects: the server's WebAuthn library checks them.
import * as z from "zod";
import { SignedIn } from "./auth.ts";
import { Count, StoredText, Timestamp } from "./primitives.ts";
import { CurrentPassword } from "./sudo.ts";

/** The second factors a user may have, in the order the sign-in page offers them. */
export const TWO_FACTOR_METHODS = ["totp", "passkey", "recovery_code"] as const;
export const TwoFactorMethod = z.enum(TWO_FACTOR_METHODS);
export type TwoFactorMethod = z.infer<typeof TwoFactorMethod>;

/** How long a sign-in's second-factor challenge may be answered. */
export const TWO_FACTOR_CHALLENGE_MINUTES = 5;
/** Recovery codes made at once (each works once; making new ones voids the old). */
export const RECOVERY_CODE_COUNT = 10;
/** TOTP codes: six digits every 30 seconds, the step before and after accepted for clock drift. */
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
export const PASSKEY_NAME_MAX_LENGTH = 64;

/** Challenge tokens: 32 random bytes, base64url; only their SHA-256 is stored. */
const ChallengeToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/)
  .meta({ description: "The sign-in's challenge token, as the password step answered it" });

export const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, "Six digits")
  .meta({ description: "The code the authenticator app shows (six digits)", examples: ["123456"] });
/** Recovery codes: `xxxxx-xxxxx` in lower-case letters and digits; spaces and case are forgiven. */
export const RecoveryCodeInput = z
  .string()
  .max(64)
  .transform((v) => v.replace(/\s+/g, "").toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9]{5}-?[a-z0-9]{5}$/, "A recovery code looks like abcde-12345"))
  .meta({ description: "One of the recovery codes, each usable once", examples: ["k3m9q-x2p7d"] });

/** A WebAuthn JSON object (options or a credential), checked by the server's WebAuthn library. */
const WebAuthnJson = z.record(z.string(), z.unknown());

/** What a correct password answers for a user with two-factor sign-in: no session yet. */
export const TwoFactorChallenge = z
  .object({
    two_factor_required: z.literal(true),
    challenge: ChallengeToken.meta({
      description: `Send it to POST /api/v1/auth/login/two-factor with a second factor within ${TWO_FACTOR_CHALLENGE_MINUTES} minutes; it works once`,
    }),
    methods: z.array(TwoFactorMethod).meta({ description: "The second factors this user has" }),
    expires_at: Timestamp,
    passkey_options: WebAuthnJson.nullable().meta({
      description:
        "PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get, when the user has passkeys",
    }),
  })
  .meta({ id: "TwoFactorChallenge" });
export type TwoFactorChallenge = z.infer<typeof TwoFactorChallenge>;

/** Signing in with a password: a session, or for a user with two-factor sign-in a challenge. */
export const SignInResult = z.union([SignedIn, TwoFactorChallenge]).meta({ id: "SignInResult" });
export type SignInResult = z.infer<typeof SignInResult>;

export const CompleteTwoFactorBody = z
  .union([
    z.strictObject({ challenge: ChallengeToken, code: TotpCode }),
    z.strictObject({ challenge: ChallengeToken, recovery_code: RecoveryCodeInput }),
    z.strictObject({
      challenge: ChallengeToken,
      passkey: WebAuthnJson.meta({ description: "The assertion (AuthenticationResponseJSON)" }),
    }),
  ])
  .meta({ id: "CompleteTwoFactorBody", description: "The challenge with exactly one second factor" });
export type CompleteTwoFactorBody = z.infer<typeof CompleteTwoFactorBody>;

export const TwoFactorStatus = z
  .object({
    totp: z.boolean().meta({ description: "An authenticator app is confirmed" }),
    recovery_codes_left: Count,
    passkeys: Count,
    enabled: z.boolean().meta({ description: "Signing in with the password asks for a second factor" }),
  })
  .meta({ id: "TwoFactorStatus" });
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

/** Sensitive changes to the second factors need the password re-entered (sudo), here or shortly before. */
export const SudoBody = z
  .strictObject({ current_password: CurrentPassword.optional() })
  .optional()
  .meta({ id: "SudoBody" });

export const TotpEnrolment = z
  .object({
    secret: z.string().meta({ description: "Base32, for typing into the app by hand" }),
    otpauth_uri: z.string().meta({ description: "otpauth://totp/… (what the QR code holds)" }),
    qr_data_url: z.string().meta({ description: "The otpauth URI as an SVG QR code (data: URL)" }),
  })
  .meta({ id: "TotpEnrolment" });
export type TotpEnrolment = z.infer<typeof TotpEnrolment>;

export const ConfirmTotpBody = z.strictObject({ code: TotpCode }).meta({ id: "ConfirmTotpBody" });

export const RecoveryCodes = z
  .object({
    recovery_codes: z
      .array(z.string())
      .meta({ description: `${RECOVERY_CODE_COUNT} codes, shown once; each signs in once` }),
  })
  .meta({ id: "RecoveryCodes" });
export type RecoveryCodes = z.infer<typeof RecoveryCodes>;

export const TotpDisabled = z.object({ disabled: z.literal(true) });

export const PasskeyName = StoredText().trim().min(1).max(PASSKEY_NAME_MAX_LENGTH);

export const Passkey = z
  .object({
    id: z.string().meta({ description: "The credential id (base64url)" }),
    name: z.string(),
    created_at: Timestamp,
    last_used_at: Timestamp.nullable(),
  })
  .meta({ id: "Passkey" });
export type Passkey = z.infer<typeof Passkey>;

export const PasskeyParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{16,1400}$/) });

export const PasskeyRegistrationOptions = z
  .object({
    options: WebAuthnJson.meta({
      description: "PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create",
    }),
  })
  .meta({ id: "PasskeyRegistrationOptions" });

export const RegisterPasskeyBody = z
  .strictObject({
    response: WebAuthnJson.meta({ description: "The new credential (RegistrationResponseJSON)" }),
    name: PasskeyName.optional(),
  })
  .meta({ id: "RegisterPasskeyBody" });

export const RenamePasskeyBody = z.strictObject({ name: PasskeyName }).meta({ id: "RenamePasskeyBody" });
export const DeletedPasskey = z.object({ id: z.string(), deleted: z.literal(true) });

export const PasskeySignInOptions = z
  .object({
    challenge: ChallengeToken.meta({ description: "Send it back with the assertion" }),
    options: WebAuthnJson.meta({
      description: "PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get",
    }),
  })
  .meta({ id: "PasskeySignInOptions" });

export const PasskeySignInBody = z
  .strictObject({ challenge: ChallengeToken, response: WebAuthnJson })
  .meta({ id: "PasskeySignInBody" });
