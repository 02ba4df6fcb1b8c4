// Accounts made in a browser and the sessions that sign them in (docs/api.md "Sessions",
// docs/decisions/0021-sessions-and-csrf.md). A session is an opaque random token in an HttpOnly
// cookie; the server keeps only its SHA-256. Every state-changing request made with it carries the
// session's CSRF token in a header, which a cross-site form cannot set.
import * as z from "zod";
import { Account, CreatedApiKey, HealthCheckInterval } from "./account.ts";
import { Count, StoredText, Timestamp, Uuid } from "./primitives.ts";
import { Role } from "./scopes.ts";
import { CurrentPassword, PASSWORD_MAX_LENGTH } from "./sudo.ts";

/** The cookie that carries the session token. */
export const SESSION_COOKIE = "kurz_session";
/**
 * Its name when the public origin is https: browsers accept a `__Host-` cookie only from that very
 * host, Secure, with Path=/ and no Domain, so a sibling subdomain cannot plant or overwrite it.
 */
export const SESSION_COOKIE_TLS = `__Host-${SESSION_COOKIE}`;
/** The header that carries the session's CSRF token on POST, PUT, PATCH and DELETE. */
export const CSRF_HEADER = "x-csrf-token";
/** Session tokens: 32 random bytes, base64url (43 characters). */
export const SESSION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/**
 * The cookie that tells a browser that signed in before from a new one (`__Host-` behind https, as the
 * session's): a random token, of which management keeps a hash per user; a sign-in from a browser
 * without a known one is announced to the user by e-mail. It authenticates nothing.
 */
export const DEVICE_COOKIE = "kurz_device";
export const DEVICE_COOKIE_TLS = `__Host-${DEVICE_COOKIE}`;
/** Browsers keep a cookie at most 400 days. */
export const DEVICE_COOKIE_DAYS = 400;

export const PASSWORD_MIN_LENGTH = 8;
export const EMAIL_MAX_LENGTH = 254;

/**
 * An account password's shape. Its strength (not easy to guess) is checked by the server with
 * password-strength.ts, which the dashboard loads separately: its dictionaries do not belong here.
 */
export const Password = StoredText()
  .min(PASSWORD_MIN_LENGTH)
  .max(PASSWORD_MAX_LENGTH)
  .meta({
    description: `At least ${PASSWORD_MIN_LENGTH} characters and not easy to guess: common passwords, words, names, keyboard patterns, repeats, dates and the e-mail address are refused (VALIDATION_ERROR with the reason)`,
  });

/** E-mail addresses compare without regard to case: stored and looked up lower-case. */
export const Email = z
  .string()
  .trim()
  .max(EMAIL_MAX_LENGTH)
  .pipe(z.email())
  .transform((email) => email.toLowerCase())
  .meta({ description: "E-mail address (case-insensitive)", examples: ["ada@example.com"] });

export const RegisterBody = z.object({ email: Email, password: Password }).meta({ id: "RegisterBody" });
export type RegisterBody = z.infer<typeof RegisterBody>;

/** Any password up to the maximum is tried: a shorter one simply fails, as a wrong one does. */
export const LoginBody = z
  .object({ email: Email, password: StoredText().min(1).max(PASSWORD_MAX_LENGTH) })
  .meta({ id: "LoginBody" });
export type LoginBody = z.infer<typeof LoginBody>;

/** A workspace the signed-in user belongs to, as the session lists them (the switcher's entries). */
export const SessionWorkspace = z.object({
  id: Uuid,
  name: z.string(),
  role: Role,
  require_two_factor: z.boolean().meta({ description: "The workspace requires two-factor sign-in" }),
});
export type SessionWorkspace = z.infer<typeof SessionWorkspace>;

export const Session = z
  .object({
    account_id: Uuid.meta({ description: "The workspace this request acts in" }),
    user_id: Uuid,
    email: z.email().meta({ description: "The signed-in user's" }),
    role: Role.meta({ description: "The user's role in account_id's workspace" }),
    workspaces: z
      .array(SessionWorkspace)
      .meta({ description: "Every workspace the user belongs to, the default (first) first" }),
    two_factor: z.boolean().meta({
      description:
        "The user has a second factor (an authenticator app or a passkey); without one, a workspace that requires it answers TWO_FACTOR_REQUIRED",
    }),
    expires_at: Timestamp.meta({ description: "When the session ends unless used (each use renews it)" }),
    csrf_token: z.string().meta({ description: "Send it as X-CSRF-Token on every POST, PUT, PATCH, DELETE" }),
  })
  .meta({ id: "Session" });
export type Session = z.infer<typeof Session>;

export const Registered = z
  .object({
    account: Account,
    api_key: CreatedApiKey.meta({ description: "The account's first API key; shown once" }),
    session: Session,
  })
  .meta({ id: "Registered" });
export type Registered = z.infer<typeof Registered>;

export const SignedIn = z.object({ account: Account, session: Session }).meta({ id: "SignedIn" });
export type SignedIn = z.infer<typeof SignedIn>;

export const SignedOut = z.object({ signed_out: z.literal(true) });
export type SignedOut = z.infer<typeof SignedOut>;

export const ChangePasswordBody = z
  .object({
    current_password: CurrentPassword,
    new_password: Password,
    revoke_keys: z
      .boolean()
      .optional()
      .meta({ description: "Also revoke every API key of the account (a key outlives a password change)" }),
  })
  .meta({ id: "ChangePasswordBody" });
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>;

export const PasswordChanged = z.object({
  changed: z.literal(true),
  revoked_keys: Count.meta({ description: "API keys revoked with the change (0 unless revoke_keys)" }),
});
export type PasswordChanged = z.infer<typeof PasswordChanged>;

export const MAX_DEFAULT_EXPIRY_HOURS = 87_600;

export const UpdateAccountBody = z
  .strictObject({
    default_expiry_hours: z.int().min(1).max(MAX_DEFAULT_EXPIRY_HOURS).nullable().optional(),
    forward_query: z.boolean().optional().meta({
      description: "Default of new links' forward_query (docs/smart-links.md); true unless set",
    }),
    health_check_interval: HealthCheckInterval.optional().meta({
      description:
        "How often the links' destinations are checked: hourly, daily (the default), weekly or off",
    }),
  })
  .meta({ id: "UpdateAccountBody" });
export type UpdateAccountBody = z.infer<typeof UpdateAccountBody>;

// ---- between the gateway and management ----

/**
 * What management's internal session lookup (GET /internal/sessions/:sha256-hex) answers and the
 * gateway caches in Redis. `renewed_at` is when `expires_at` was last pushed forward: the gateway asks
 * management to renew once a fraction of the idle lifetime has passed, not on every request.
 */
export const SessionRecord = z.object({
  session_id: Uuid,
  user_id: Uuid,
  email: z.email(),
  /** The user's memberships, the default workspace first; the gateway checks X-Workspace-Id against them. */
  workspaces: z.array(
    z.object({
      id: Uuid,
      role: Role,
      /** The workspace requires two-factor sign-in and the user has no second factor. */
      two_factor_missing: z.boolean().optional(),
    }),
  ),
  csrf_token: z.string(),
  renewed_at: Timestamp,
  expires_at: Timestamp,
});
export type SessionRecord = z.infer<typeof SessionRecord>;

/** Redis key of a cached SessionRecord, by the SHA-256 hex of the token (the token is never stored). */
export function sessionCacheKey(tokenHash: string): string {
  return `session:${tokenHash}`;
}

/**
 * What a revoked session's cache entry holds for a while: the gateway writes a looked-up record only
 * where no tombstone is, so a lookup that raced with the revocation cannot bring the session back.
 */
export const SESSION_TOMBSTONE = "revoked";

// ---- forgotten passwords (docs/api.md, "Password reset") ----

/** How long a password reset link works. */
export const PASSWORD_RESET_MINUTES = 60;
export const RESET_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const RequestPasswordResetBody = z
  .strictObject({ email: Email })
  .meta({ id: "RequestPasswordResetBody" });
export const PasswordResetRequested = z
  .object({ requested: z.literal(true) })
  .meta({ description: "The same answer whether or not the address has an account" });
export const ResetTokenParams = z.object({ token: z.string().regex(RESET_TOKEN_PATTERN) });
export const ResetPasswordBody = z.strictObject({ password: Password }).meta({ id: "ResetPasswordBody" });

// ---- changing one's e-mail address (docs/api.md, "Changing the e-mail address") ----

export const ChangeEmailBody = z
  .strictObject({ email: Email, current_password: CurrentPassword })
  .meta({ id: "ChangeEmailBody" });
export const EmailChangeRequested = z.object({
  requested: z.literal(true),
  email: z.email().meta({ description: "Where the confirmation link went" }),
});
export const EmailChangeTokenParams = z.object({ token: z.string().regex(RESET_TOKEN_PATTERN) });
export const EmailChanged = z.object({ changed: z.literal(true), email: z.email() });
