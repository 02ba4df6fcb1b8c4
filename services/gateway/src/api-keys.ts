// Resolves a Bearer key to its record: Redis cache first, management's internal lookup on a miss, so
// authentication costs no database query on the hot path. Unknown keys are cached briefly too.
import { createHash } from "node:crypto";
import { API_KEY_PATTERN, apiKeyCacheKey, INTERNAL_ROUTES, type KeyRecord } from "@kurz/contracts";
import {
  apiError,
  createInternalClient,
  internalHeaders,
  keyExpired,
  keyRevoked,
  serviceUnavailable,
} from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";

const UNKNOWN = "unknown";
const UNKNOWN_TTL_SECONDS = 10;
/** Parsed records kept in memory (a few hundred bytes each), least recently used dropped first. */
const PARSED_MAX = 10_000;

const invalidKey = (hint: string) => apiError("UNAUTHORIZED", "Invalid API key.", { hint });

const unavailable = () => serviceUnavailable("Authentication is temporarily unavailable; retry shortly");

const { getKey } = INTERNAL_ROUTES;

export class ApiKeys {
  private readonly management;

  constructor(
    private readonly redis: Redis,
    private readonly opts: {
      managementUrl: string /** The INTERNAL_TOKEN secret. */;
      internalSecret: string;
      ttlSeconds: number;
    },
  ) {
    this.management = createInternalClient(
      opts.managementUrl,
      internalHeaders(opts.internalSecret, "gateway"),
    );
  }

  /** Key lookups answered from the Redis cache (a known or an unknown key) and those asked of management. */
  readonly cacheReads = { hit: 0, miss: 0 };

  /** The last record parsed per cache key, reused while the cached text is unchanged. */
  private readonly parsed = new LRUCache<string, { text: string; record: KeyRecord }>({ max: PARSED_MAX });

  /**
   * Throws 401 (UNAUTHORIZED, KEY_EXPIRED or KEY_REVOKED) or 503; returns the live key otherwise.
   * `beforeManagement`, when given, must resolve before a key missing from the cache is asked of
   * management (its rejection is thrown instead): the caller's failed-authentication budget, checked
   * while the cache is read, so a spent budget still costs no management query.
   */
  async authenticate(
    authorization: string | undefined,
    now = Date.now(),
    beforeManagement?: Promise<unknown>,
  ): Promise<KeyRecord> {
    // SnipURL's documented wording for every missing or unknown key (its clients show `error.message`);
    // what was wrong with the header is in `details`.
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
    if (!match) throw invalidKey("Send the header 'Authorization: Bearer <API key>'");
    const key = match[1]!;
    if (!API_KEY_PATTERN.test(key)) throw invalidKey("This is not a Kurz API key");
    const record = await this.lookup(createHash("sha256").update(key).digest("hex"), beforeManagement);
    if (!record) throw invalidKey("No such API key");
    if (record.revoked) throw keyRevoked("This API key has been revoked");
    if (record.expires_at !== null && Date.parse(record.expires_at) <= now) {
      throw keyExpired("This API key has expired");
    }
    return record;
  }

  private async lookup(hash: string, beforeManagement?: Promise<unknown>): Promise<KeyRecord | null> {
    const cacheKey = apiKeyCacheKey(hash);
    let cached: string | null;
    try {
      cached = await this.redis.get(cacheKey);
    } catch {
      throw unavailable();
    }
    if (cached === UNKNOWN) {
      this.cacheReads.hit++;
      return null;
    }
    if (cached) {
      // The same text parses to the same record: a revocation or a change rewrites the text.
      const known = this.parsed.get(cacheKey);
      if (known?.text === cached) {
        this.cacheReads.hit++;
        return known.record;
      }
      // A damaged entry is treated as a miss and replaced from management, never trusted.
      const parsed = getKey.response.safeParse(parseJson(cached));
      if (parsed.success) {
        this.cacheReads.hit++;
        this.parsed.set(cacheKey, { text: cached, record: parsed.data });
        return parsed.data;
      }
      await this.redis.del(cacheKey).catch(() => {});
    }
    this.cacheReads.miss++;
    await beforeManagement;

    let res: Response;
    try {
      res = await this.management.call(getKey, { hash }, { timeoutMs: 3_000 });
    } catch {
      throw unavailable();
    }
    if (res.status === 404) {
      await this.cache(cacheKey, UNKNOWN, UNKNOWN_TTL_SECONDS);
      return null;
    }
    const parsed = res.ok ? getKey.response.safeParse(await res.json().catch(() => null)) : null;
    if (!parsed?.success) throw unavailable();
    await this.cache(cacheKey, JSON.stringify(parsed.data), this.opts.ttlSeconds);
    return parsed.data;
  }

  /**
   * NX: management writes the revoked record on revocation; a lookup that raced with it must not
   * overwrite that with the stale copy it read just before.
   */
  private async cache(cacheKey: string, value: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(cacheKey, value, "EX", ttlSeconds, "NX").catch(() => {});
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
