// A per-client budget for lookups that reach management and find nothing (docs/security.md): unknown
// codes, rotator slugs and hosts are each one Postgres query, and a client inventing them could
// otherwise send management one query per request. Past the budget the client's further lookups that
// would reach management are refused (429); anything cached — in process or in Redis, found or known
// missing — is still answered. Counted per client network (client-key.ts) in Redis, so every
// redirect instance shares one budget per client.
import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { clientKey } from "./client-key.ts";
import type { GateAnswer, ManagementGate } from "./resolver.ts";
import { WindowCounter } from "./window-counter.ts";

const WINDOW_SECONDS = 60;

export class MissBudget {
  private readonly counter: WindowCounter;
  // A refused client stays refused until its window ends, known here without asking Redis again: a
  // flood past the budget then costs this instance nothing but a map lookup per request.
  private readonly refusedUntil = new LRUCache<string, number>({ max: 10_000 });
  /** Lookups refused so far (a metric). */
  refusals = 0;

  constructor(
    redis: Redis,
    private readonly perMinute: number,
  ) {
    this.counter = new WindowCounter(redis, WINDOW_SECONDS);
  }

  /** The gate for one client's lookups (see Resolver). */
  gate(ip: string | null): ManagementGate {
    return () => this.admit(`missbudget:${clientKey(ip)}`);
  }

  // The lookup is counted before it is made, so parallel lookups cannot overrun the budget, and taken
  // back when management found the record (or could not answer): only misses use the budget.
  private async admit(key: string): Promise<GateAnswer> {
    const until = this.refusedUntil.get(key);
    if (until !== undefined && until > Date.now()) {
      this.refusals++;
      return { allowed: false, retryAfter: Math.max(1, Math.ceil((until - Date.now()) / 1000)) };
    }
    const [used] = await this.counter.hit(key);
    if (used!.count > this.perMinute) {
      this.refusals++;
      this.refusedUntil.set(key, Date.now() + used!.retryAfter * 1000);
      return { allowed: false, retryAfter: used!.retryAfter };
    }
    return {
      allowed: true,
      settle: (missed) => {
        if (!missed) void this.counter.undo(key);
      },
    };
  }
}
