// A link's click limit (max_clicks), exact across every redirect instance: each counted visit is one
// INCR of the link's counter in the shared Redis (contracts' clickLimitKey), and the visit that gets a
// number past the limit is the first one refused. Visits that do not count (HEAD, bots) only read
// the counter. Links without a limit never reach this.
import { clickLimitKey } from "@kurz/contracts";
import type { Redis } from "ioredis";

export class ClickLimit {
  constructor(private readonly redis: Redis) {}

  /**
   * Whether a visit is within `max`: a counted one takes the next number (n ≤ max), any other is let
   * through while the count is below `max`. Rejects when Redis does not answer: the caller refuses
   * the visit rather than risk an overshoot.
   */
  async admit(linkId: string, max: number, counted: boolean): Promise<boolean> {
    const key = clickLimitKey(linkId);
    if (counted) return (await this.redis.incr(key)) <= max;
    const n = await this.redis.get(key);
    return n === null || Number(n) < max;
  }
}
