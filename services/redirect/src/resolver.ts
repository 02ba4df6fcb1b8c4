// Resolves a short code to its redirect record: in-process LRU → Redis → management's internal
// resolve endpoint. Misses are cached too (negative caching) so a flood of unknown codes cannot reach
// management, and concurrent misses for one code share one request.
import { type RedirectRecord, redirectKey } from "@kurz/contracts";
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";

const MISSING = Symbol("missing");
type Entry = RedirectRecord | typeof MISSING;

export interface ResolverOptions {
  redis: Redis;
  managementUrl: string;
  internalToken: string;
  maxEntries: number;
  ttlMs: number;
  onError?: (err: unknown, where: "redis" | "management") => void;
}

/** Neither Redis nor management could answer; the link may well exist, so this is not a 404. */
export class ResolverUnavailableError extends Error {
  constructor(code: string) {
    super(`could not resolve ${code}: Redis and management unavailable`);
  }
}

export class Resolver {
  private readonly cache: LRUCache<string, Entry>;
  private readonly inFlight = new Map<string, Promise<RedirectRecord | null>>();

  constructor(private readonly opts: ResolverOptions) {
    this.cache = new LRUCache<string, Entry>({ max: opts.maxEntries, ttl: opts.ttlMs });
  }

  /** Returns a cached answer synchronously when there is one, so the hot path awaits nothing. */
  peek(code: string): RedirectRecord | null | undefined {
    const hit = this.cache.get(code);
    if (hit === undefined) return undefined;
    return hit === MISSING ? null : hit;
  }

  /** Rejects with ResolverUnavailableError when no source could answer. */
  resolve(code: string): Promise<RedirectRecord | null> {
    const pending = this.inFlight.get(code);
    if (pending) return pending;
    const p = this.load(code).finally(() => this.inFlight.delete(code));
    this.inFlight.set(code, p);
    return p;
  }

  /** Drops a code everywhere in this process (called on invalidation messages). */
  invalidate(code: string): void {
    this.cache.delete(code);
  }

  private async load(code: string): Promise<RedirectRecord | null> {
    let raw: string | null = null;
    let redisOk = true;
    try {
      raw = await this.opts.redis.get(redirectKey(code));
    } catch (err) {
      redisOk = false;
      this.opts.onError?.(err, "redis");
    }
    if (raw !== null) {
      const record = JSON.parse(raw) as RedirectRecord;
      this.cache.set(code, record);
      return record;
    }
    // A Redis miss is not proof the code is unknown: Redis may have been flushed. Management heals it.
    const record = await this.fromManagement(code);
    if (record === undefined) {
      // Neither Redis nor management answered: not cached, so the next request tries again.
      throw new ResolverUnavailableError(code);
    }
    this.cache.set(code, record ?? MISSING);
    if (record && redisOk) {
      this.opts.redis.set(redirectKey(code), JSON.stringify(record)).catch(() => {});
    }
    return record;
  }

  /** undefined = management could not answer; null = management says there is no such link. */
  private async fromManagement(code: string): Promise<RedirectRecord | null | undefined> {
    try {
      const res = await fetch(
        `${this.opts.managementUrl}/internal/links/resolve/${encodeURIComponent(code)}`,
        {
          headers: { "x-kurz-internal-token": this.opts.internalToken },
          signal: AbortSignal.timeout(2_000),
        },
      );
      if (res.status === 404) return null;
      if (!res.ok) throw new Error(`management answered ${res.status}`);
      return (await res.json()) as RedirectRecord;
    } catch (err) {
      this.opts.onError?.(err, "management");
      return undefined;
    }
  }
}
