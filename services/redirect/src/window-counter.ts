// Fixed-window counters in Redis, shared by every redirect instance: the password limiter and the
// miss budget. A window starts at its key's first hit and lasts `windowSeconds`. Every hit counts
// before the caller acts on it, so parallel requests cannot slip past a limit. While Redis is
// unavailable an in-process count takes over: an outage must not open the door to unlimited tries.
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";

export interface Count {
  count: number;
  /** Seconds until this key's window ends (for Retry-After), at least 1. */
  retryAfter: number;
}

export class WindowCounter {
  // Made on the first hit Redis cannot count: lru-cache allocates its arrays for `max` entries up
  // front (~1.7 MB here), and the redirect holds one counter per limit while Redis is almost always up.
  private localCounts: LRUCache<string, { count: number; resetAt: number }> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly windowSeconds: number,
  ) {}

  private get local(): LRUCache<string, { count: number; resetAt: number }> {
    this.localCounts ??= new LRUCache({ max: 50_000, ttl: this.windowSeconds * 1000 });
    return this.localCounts;
  }

  /** Counts one hit on each key, in one transaction; the counts in the order of the keys. */
  async hit(...keys: string[]): Promise<Count[]> {
    try {
      const tx = this.redis.multi();
      // SET NX gives a new window its expiry; INCR counts; TTL says when the window ends.
      for (const key of keys) tx.set(key, 0, "EX", this.windowSeconds, "NX").incr(key).ttl(key);
      const results = await tx.exec();
      if (!results || results.some(([err]) => err)) throw new Error("counter transaction failed");
      return keys.map((_, i) => ({
        count: Number(results[i * 3 + 1]![1]),
        retryAfter: Math.max(1, Number(results[i * 3 + 2]![1])),
      }));
    } catch {
      return keys.map((key) => this.hitLocally(key));
    }
  }

  /** Takes one hit back (it turned out not to count). */
  async undo(key: string): Promise<void> {
    const entry = this.localCounts?.get(key);
    if (entry && entry.count > 0) entry.count--;
    // DECR on an expired key would create one without a TTL: only decrement a key that still exists.
    await this.redis.eval(UNDO, 1, key).catch(() => {});
  }

  async reset(key: string): Promise<void> {
    this.localCounts?.delete(key);
    await this.redis.del(key).catch(() => {});
  }

  private hitLocally(key: string): Count {
    const now = Date.now();
    let entry = this.local.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + this.windowSeconds * 1000 };
      this.local.set(key, entry);
    }
    entry.count++;
    return { count: entry.count, retryAfter: Math.max(1, Math.ceil((entry.resetAt - now) / 1000)) };
  }
}

const UNDO = "if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end return 0";
