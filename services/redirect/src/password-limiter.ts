// Counts password attempts per (link, client address) in Redis, shared by every redirect instance.
// Every attempt counts before the password is checked, so parallel guesses cannot slip past the limit;
// a right password clears the count. While Redis is unavailable an in-process count takes over, so
// an outage does not open the door to unlimited guessing.
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";

export interface Attempt {
  allowed: boolean;
  /** Seconds until the window resets (for Retry-After). */
  retryAfter: number;
}

export class PasswordLimiter {
  private readonly local: LRUCache<string, { count: number; resetAt: number }>;

  constructor(
    private readonly redis: Redis,
    private readonly maxAttempts: number,
    private readonly windowSeconds: number,
  ) {
    this.local = new LRUCache({ max: 50_000, ttl: windowSeconds * 1000 });
  }

  async attempt(code: string, ip: string | null): Promise<Attempt> {
    const key = this.key(code, ip);
    try {
      // The window starts at the first attempt: SET NX gives it its expiry, INCR counts.
      const results = await this.redis
        .multi()
        .set(key, 0, "EX", this.windowSeconds, "NX")
        .incr(key)
        .ttl(key)
        .exec();
      if (!results || results.some(([err]) => err)) throw new Error("limiter transaction failed");
      const count = Number(results[1]![1]);
      const ttl = Number(results[2]![1]);
      return { allowed: count <= this.maxAttempts, retryAfter: Math.max(1, ttl) };
    } catch {
      return this.attemptLocally(key);
    }
  }

  async reset(code: string, ip: string | null): Promise<void> {
    const key = this.key(code, ip);
    this.local.delete(key);
    await this.redis.del(key).catch(() => {});
  }

  private attemptLocally(key: string): Attempt {
    const now = Date.now();
    let entry = this.local.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + this.windowSeconds * 1000 };
      this.local.set(key, entry);
    }
    entry.count++;
    return {
      allowed: entry.count <= this.maxAttempts,
      retryAfter: Math.max(1, Math.ceil((entry.resetAt - now) / 1000)),
    };
  }

  // The client address is hashed: Redis keys show up in monitoring tools, raw addresses must not.
  private key(code: string, ip: string | null): string {
    const who = createHash("sha256")
      .update(ip ?? "unknown")
      .digest("base64url")
      .slice(0, 22);
    return `pwlimit:${code}:${who}`;
  }
}
