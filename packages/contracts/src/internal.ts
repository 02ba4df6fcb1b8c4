import * as z from "zod";
import { Timestamp, Uuid } from "./primitives.ts";
import { Scope } from "./scopes.ts";

/**
 * The headers services exchange (the one home of their names; service-kit's internal-auth.ts checks
 * them): a caller credential on `/internal/*` calls (`token`, with `caller` naming the service for
 * logs), and on requests the gateway forwards, the forwarding credential with the identity it
 * established (ARCHITECTURE: identity is established once; docs/security.md).
 */
export const INTERNAL_HEADERS = {
  token: "x-kurz-internal-token",
  caller: "x-kurz-caller",
  forwardToken: "x-kurz-forward-token",
  accountId: "x-kurz-account-id",
  keyId: "x-kurz-key-id",
  /** The session that authenticated the request (its id, never its token); absent with a key. */
  sessionId: "x-kurz-session-id",
  /** The user acting (a session's, or a key's creator); absent when a key's creator is gone. */
  userId: "x-kurz-user-id",
  /** What the caller may do in the account's workspace: comma-separated scopes (contracts' SCOPES). */
  scopes: "x-kurz-scopes",
  /** A session's role in the workspace; absent with a key. */
  role: "x-kurz-role",
  /**
   * "missing": the workspace requires two-factor sign-in and the user (a session's, or a key's creator)
   * has no second factor; every route that needs a scope answers TWO_FACTOR_REQUIRED.
   */
  twoFactor: "x-kurz-two-factor",
  /** On sign-up and sign-in: the browser's device token from its cookie (DEVICE_COOKIE), when well-formed. */
  device: "x-kurz-device",
  /** Keyed hash of the client's address (per-client budgets upstream; no raw IP leaves the gateway). */
  clientHash: "x-kurz-client",
  /** The client address's /24 (IPv4) or /48 (IPv6) prefix, for the audit log; never the address. */
  ipPrefix: "x-kurz-ip-prefix",
  /** The client's user-agent family ("Chrome on macOS", "curl"), for the audit log. */
  agent: "x-kurz-agent",
  requestId: "x-request-id",
  /**
   * The operators' credential (management's ADMIN_TOKEN, sent as configured) on `/internal/admin/*`;
   * like every x-kurz-* header, the gateway drops it from a client's request.
   */
  adminToken: "x-kurz-admin-token",
  /**
   * Set by the edge (infra/edge/nginx.conf) on every request it proxies, replacing any the client sent:
   * `<$request_id> <$msec>`, nginx's 32 hex digits for the request and its time in seconds with
   * milliseconds. A retry of the request on another instance carries the same value, so a redirect
   * that trusts the edge (TRUST_PROXY) derives the click id and time from it and both copies of a
   * click share them (decision 0049).
   */
  edgeRequest: "x-kurz-edge-request",
} as const;

/**
 * What management's internal key lookup (GET /internal/keys/:sha256-hex) answers and the gateway
 * caches in Redis: enough to authenticate and rate-limit without a database query per request.
 */
export const KeyRecord = z.object({
  key_id: Uuid,
  account_id: Uuid,
  /** The key's creator, whose e-mail and password a profile:write key may change; null once they are gone. */
  user_id: Uuid.nullable(),
  scopes: z.array(Scope),
  name: z.string(),
  rate_limit_per_minute: z.int().positive(),
  rate_limit_per_hour: z.int().positive(),
  expires_at: Timestamp.nullable(),
  revoked: z.boolean(),
  /** The workspace requires two-factor sign-in and the key's creator has no second factor (or is gone). */
  two_factor_missing: z.boolean().optional(),
});
export type KeyRecord = z.infer<typeof KeyRecord>;

/** Redis key of a cached KeyRecord, by the SHA-256 hex of the API key (the key itself is never stored). */
export function apiKeyCacheKey(keyHash: string): string {
  return `apikey:${keyHash}`;
}

/**
 * Redis hash of API key id → epoch milliseconds of its last use. The gateway writes it (no database
 * write per request); management merges it into `last_used_at` and flushes it to Postgres periodically.
 */
export const API_KEY_USAGE_HASH = "apikey-usage";
