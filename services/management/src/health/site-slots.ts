// Politeness towards destination sites across every management instance (docs/health.md): one Redis key
// per site (its registrable domain, siteOf) is the site's slot. A check takes it with SET NX before it
// starts and, when it ends, leaves it to expire one interval after its start, so a site has at most one
// check in flight and checks start at least `intervalMs` apart, whichever instance runs them. The same
// script counts the scheduled checks of the current Redis second against the global budget.
import { serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";
import { siteOf } from "../titles/title-fetcher.ts";

/** A site's slot is held at most this long, whatever happens to its holder (the check's deadline is 10 s). */
export const SLOT_HOLD_MS = 15_000;

/**
 * Network jitter: the slot outlives the interval by this much, so the site sees two requests at least
 * the interval apart even when the first reached it a little after its check started.
 */
const SLOT_MARGIN_MS = 100;

// KEYS[1] the site's slot, KEYS[2] the budget's key stem (one key per Redis second).
// ARGV[1] token, ARGV[2] hold ms, ARGV[3] checks per second (0: no budget).
// Answers {0, 0} taken; {1, ms} the site is busy for ms more; {2, ms} the budget is spent for ms more.
const TAKE = `
local pttl = redis.call('PTTL', KEYS[1])
if pttl ~= -2 then
  if pttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); pttl = tonumber(ARGV[2]) end
  return {1, pttl}
end
local limit = tonumber(ARGV[3])
if limit > 0 then
  local t = redis.call('TIME')
  local bucket = KEYS[2] .. ':' .. t[1]
  local used = tonumber(redis.call('GET', bucket) or '0')
  if used >= limit then return {2, 1000 - math.floor(tonumber(t[2]) / 1000)} end
  redis.call('INCR', bucket)
  redis.call('PEXPIRE', bucket, 2000)
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {0, 0}`;

// KEYS[1] the site's slot; ARGV[1] the holder's token, ARGV[2] ms the slot must still be held (<= 0: none).
const GIVE_BACK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) else redis.call('DEL', KEYS[1]) end
end
return 0`;

export type Take =
  | { taken: true; release: () => Promise<void> }
  | { taken: false; reason: "site" | "budget"; retryInMs: number };

export class SiteSlots {
  private seq = 0;

  constructor(
    private readonly redis: Redis,
    private readonly opts: {
      /** Least time between the starts of two checks of one site. */
      intervalMs?: number;
      /** Scheduled checks per second over every instance; 0: unlimited. */
      checksPerSecond?: number;
      /** Distinguishes this process's tokens from another's. */
      instance?: string;
    } = {},
  ) {}

  private get intervalMs(): number {
    return this.opts.intervalMs ?? 1_000;
  }

  /**
   * Takes `hostname`'s site slot (and, with `budget`, one check of this second's budget), or says how long
   * to wait. Throws when Redis does.
   */
  async take(hostname: string, budget: boolean): Promise<Take> {
    const site = siteOf(hostname);
    const key = `health:site:${site}`;
    const token = `${this.opts.instance ?? process.pid}:${++this.seq}`;
    const [code, ms] = (await this.redis.eval(
      TAKE,
      2,
      key,
      "health:budget",
      token,
      String(SLOT_HOLD_MS),
      String(budget ? (this.opts.checksPerSecond ?? 0) : 0),
    )) as [number, number];
    if (code !== 0)
      return { taken: false, reason: code === 1 ? "site" : "budget", retryInMs: Math.max(1, ms) };
    const started = performance.now();
    return {
      taken: true,
      release: async () => {
        const left = Math.ceil(started + this.intervalMs + SLOT_MARGIN_MS - performance.now());
        await this.redis.eval(GIVE_BACK, 1, key, token, String(left));
      },
    };
  }

  /**
   * Runs `task` holding `hostname`'s slot, waiting for it (a check on demand: no budget). Waits at most
   * `maxWaitMs`; a 503 when the slot stays busy that long or Redis fails.
   */
  async run<T>(hostname: string, task: () => Promise<T>, maxWaitMs = 30_000): Promise<T> {
    const until = performance.now() + maxWaitMs;
    for (;;) {
      let got: Take;
      try {
        got = await this.take(hostname, false);
      } catch {
        throw serviceUnavailable("Health checks are temporarily unavailable; retry shortly");
      }
      if (got.taken) {
        try {
          return await task();
        } finally {
          await got.release().catch(() => {}); // the slot then expires by itself
        }
      }
      if (performance.now() + got.retryInMs > until) {
        throw serviceUnavailable("The destination's site is busy with other checks; retry shortly");
      }
      // While a check is in flight the slot's time left is its whole hold: look again soon.
      await new Promise((r) => setTimeout(r, Math.min(got.retryInMs, 200)));
    }
  }
}
