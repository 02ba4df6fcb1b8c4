// Resolves a Bearer key to its record: Redis cache first, management's internal lookup on a miss, so
// authentication costs no database query on the hot path. Unknown keys are cached briefly too.
import { createHash } from "node:crypto";
import { apiKeyCacheKey, type KeyRecord } from "@kurz/contracts";
import { ApiError } from "@kurz/service-kit";
import type { Redis } from "ioredis";

const KEY_SHAPE = /^kurz_live_[0-9A-Za-z]{32}$/;
const UNKNOWN = "unknown";

export class ApiKeys {
  constructor(
    private readonly redis: Redis,
    private readonly opts: { managementUrl: string; internalToken: string; ttlSeconds: number },
  ) {}

  /** Throws ApiError 401 (UNAUTHORIZED, KEY_EXPIRED or KEY_REVOKED); returns the live key otherwise. */
  async authenticate(authorization: string | undefined): Promise<KeyRecord> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match)
      throw new ApiError(
        401,
        "UNAUTHORIZED",
        "Missing or malformed Authorization header; send 'Bearer <API key>'",
      );
    const key = match[1]!;
    if (!KEY_SHAPE.test(key)) throw new ApiError(401, "UNAUTHORIZED", "Invalid API key");
    const record = await this.lookup(createHash("sha256").update(key).digest("hex"));
    if (!record) throw new ApiError(401, "UNAUTHORIZED", "Invalid API key");
    if (record.revoked) throw new ApiError(401, "KEY_REVOKED", "This API key has been revoked");
    if (record.expires_at !== null && Date.parse(record.expires_at) <= Date.now()) {
      throw new ApiError(401, "KEY_EXPIRED", "This API key has expired");
    }
    return record;
  }

  private async lookup(hash: string): Promise<KeyRecord | null> {
    const cacheKey = apiKeyCacheKey(hash);
    const cached = await this.redis.get(cacheKey);
    if (cached === UNKNOWN) return null;
    if (cached) return JSON.parse(cached) as KeyRecord;
    const res = await fetch(`${this.opts.managementUrl}/internal/keys/${hash}`, {
      headers: { "x-kurz-internal-token": this.opts.internalToken },
      signal: AbortSignal.timeout(3_000),
    });
    if (res.status === 404) {
      await this.redis.set(cacheKey, UNKNOWN, "EX", 10);
      return null;
    }
    if (!res.ok) throw new ApiError(503, "SERVICE_UNAVAILABLE", "Authentication is temporarily unavailable");
    const record = (await res.json()) as KeyRecord;
    await this.redis.set(cacheKey, JSON.stringify(record), "EX", this.opts.ttlSeconds);
    return record;
  }
}
