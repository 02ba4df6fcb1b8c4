// Resolves a session cookie to its record, like api-keys.ts does keys: Redis first, management's
// internal lookup on a miss (docs/decisions/0021-sessions-and-csrf.md). Management tombstones the
// entry of an ended session, and this module writes a looked-up or renewed record only where no
// tombstone is, so a lookup that raced with sign-out or a password change cannot revive it.
// Sliding expiry: once a session in use was last renewed more than a tenth of its idle lifetime
// ago (at most a minute), management pushes its end forward and the cookie is re-issued.
import { createHash, timingSafeEqual } from "node:crypto";
import {
  INTERNAL_ROUTES,
  SESSION_TOKEN_PATTERN,
  SESSION_TOMBSTONE,
  type SessionRecord,
  SessionRecord as SessionRecordSchema,
  sessionCacheKey,
} from "@kurz/contracts";
import { apiError, createInternalClient, internalHeaders, serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";

const UNKNOWN = "unknown";
const UNKNOWN_TTL_SECONDS = 10;
const RENEW_AFTER_MAX_MS = 60_000;

const notSignedIn = (hint: string) => apiError("UNAUTHORIZED", "Not signed in or session expired.", { hint });
const unavailable = () => serviceUnavailable("Authentication is temporarily unavailable; retry shortly");

// Writes `value` unless the entry is a tombstone (an ended session's).
const SET_UNLESS_TOMBSTONE = `
if redis.call("GET", KEYS[1]) == ARGV[3] then return 0 end
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1`;

export interface AuthenticatedSession {
  token: string;
  tokenHash: string;
  record: SessionRecord;
  /** Set when this request renewed the session: the cookie is re-issued for this long. */
  renewedForSeconds?: number;
}

export class Sessions {
  private readonly management;

  constructor(
    private readonly redis: Redis,
    private readonly opts: { managementUrl: string; internalSecret: string; cacheTtlSeconds: number },
  ) {
    this.management = createInternalClient(
      opts.managementUrl,
      internalHeaders(opts.internalSecret, "gateway"),
    );
  }

  /** Throws 401 (unknown, ended or expired session) or 503; returns the live session otherwise. */
  async authenticate(token: string, now = Date.now()): Promise<AuthenticatedSession> {
    if (!SESSION_TOKEN_PATTERN.test(token)) throw notSignedIn("The session cookie is not a Kurz session");
    const tokenHash = createHash("sha256").update(token).digest("hex");
    const record = await this.lookup(tokenHash);
    if (!record) throw notSignedIn("Sign in again");
    const expiresAt = Date.parse(record.expires_at);
    if (expiresAt <= now) throw notSignedIn("The session expired; sign in again");
    const renewedAt = Date.parse(record.renewed_at);
    const ttlMs = expiresAt - renewedAt;
    if (now - renewedAt < Math.min(ttlMs / 10, RENEW_AFTER_MAX_MS)) return { token, tokenHash, record };
    // A failed renewal leaves the session as it was (still valid): the next request tries again.
    const renewed = await this.renew(tokenHash).catch(() => undefined);
    if (renewed === null) throw notSignedIn("Sign in again");
    if (!renewed) return { token, tokenHash, record };
    const renewedForSeconds = (Date.parse(renewed.expires_at) - now) / 1000;
    return { token, tokenHash, record: renewed, renewedForSeconds };
  }

  /** True when `presented` is the session's CSRF token (compared in constant time). */
  static csrfMatches(record: SessionRecord, presented: string | string[] | undefined): boolean {
    if (typeof presented !== "string" || presented === "") return false;
    const digest = (value: string) => createHash("sha256").update(value).digest();
    return timingSafeEqual(digest(presented), digest(record.csrf_token));
  }

  private async lookup(tokenHash: string): Promise<SessionRecord | null> {
    const cacheKey = sessionCacheKey(tokenHash);
    let cached: string | null;
    try {
      cached = await this.redis.get(cacheKey);
    } catch {
      throw unavailable();
    }
    if (cached === UNKNOWN || cached === SESSION_TOMBSTONE) return null;
    if (cached) {
      const parsed = SessionRecordSchema.safeParse(parseJson(cached));
      if (parsed.success) return parsed.data;
      await this.redis.del(cacheKey).catch(() => {});
    }
    const res = await this.call(INTERNAL_ROUTES.getSession, tokenHash);
    if (res.status === 404) {
      await this.redis.set(cacheKey, UNKNOWN, "EX", UNKNOWN_TTL_SECONDS, "NX").catch(() => {});
      return null;
    }
    return this.store(cacheKey, res);
  }

  /** The renewed record; null when the session ended meanwhile; throws when management is unreachable. */
  private async renew(tokenHash: string): Promise<SessionRecord | null> {
    const res = await this.call(INTERNAL_ROUTES.renewSession, tokenHash);
    if (res.status === 404) {
      await this.redis
        .set(sessionCacheKey(tokenHash), UNKNOWN, "EX", UNKNOWN_TTL_SECONDS, "NX")
        .catch(() => {});
      return null;
    }
    return this.store(sessionCacheKey(tokenHash), res);
  }

  private async call(
    route: typeof INTERNAL_ROUTES.getSession | typeof INTERNAL_ROUTES.renewSession,
    hash: string,
  ): Promise<Response> {
    try {
      return await this.management.call(route, { hash }, { timeoutMs: 3_000 });
    } catch {
      throw unavailable();
    }
  }

  private async store(cacheKey: string, res: Response): Promise<SessionRecord> {
    const parsed = res.ok ? SessionRecordSchema.safeParse(await res.json().catch(() => null)) : null;
    if (!parsed?.success) throw unavailable();
    const record = parsed.data;
    const untilExpiry = Math.floor((Date.parse(record.expires_at) - Date.now()) / 1000);
    const ttl = Math.min(this.opts.cacheTtlSeconds, untilExpiry);
    if (ttl > 0) {
      await this.redis
        .eval(SET_UNLESS_TOMBSTONE, 1, cacheKey, JSON.stringify(record), String(ttl), SESSION_TOMBSTONE)
        .catch(() => {});
    }
    return record;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
