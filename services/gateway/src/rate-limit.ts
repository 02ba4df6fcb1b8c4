// Fixed-window rate limits counted atomically in Redis, shared by every gateway instance. Windows are
// aligned to the clock so every instance agrees on when a window resets.
import { RATE_LIMIT_SCRIPT, rateLimitKey } from "@kurz/contracts";
import type { Redis } from "ioredis";

export interface Window {
  name: string; // "1m", "1h"
  seconds: number;
  limit: number;
}

export interface WindowState extends Window {
  count: number;
  remaining: number;
  resetAt: number; // unix seconds
}

export class RateLimiter {
  constructor(private readonly redis: Redis) {
    redis.defineCommand("kurzRateLimit", { lua: RATE_LIMIT_SCRIPT });
  }

  /** Counts one request in every window; returns each window's state. */
  async hit(subject: string, windows: Window[], now = Date.now()): Promise<WindowState[]> {
    const nowSec = Math.floor(now / 1000);
    const keys = windows.map((w) => rateLimitKey(subject, w, nowSec));
    const ttls = windows.map((w) => String(w.seconds + 5));
    const counts = (await (
      this.redis as unknown as { kurzRateLimit(n: number, ...a: string[]): Promise<number[]> }
    ).kurzRateLimit(keys.length, ...keys, ...ttls)) as number[];
    return windows.map((w, i) => windowState(w, counts[i]!, nowSec));
  }

  /** A window's state without counting a request (to refuse before doing any work). */
  async peek(subject: string, window: Window, now = Date.now()): Promise<WindowState> {
    const nowSec = Math.floor(now / 1000);
    const count = Number((await this.redis.get(rateLimitKey(subject, window, nowSec))) ?? 0);
    return windowState(window, Number.isFinite(count) ? count : 0, nowSec);
  }
}

// Plain literals and loops: these run for every API request, where spreads and sorts cost ~2–3% of
// the gateway's CPU (docs/benchmarks/2026-11.md).
const windowState = (w: Window, count: number, nowSec: number): WindowState => ({
  name: w.name,
  seconds: w.seconds,
  limit: w.limit,
  count,
  remaining: Math.max(0, w.limit - count),
  resetAt: (Math.floor(nowSec / w.seconds) + 1) * w.seconds,
});

/** The window to report in headers: an exceeded one if any, else the one with the fewest requests left. */
export function reportedWindow(states: WindowState[]): { state: WindowState; exceeded: boolean } {
  // Of the exceeded windows, the one that resets last (the first of equals); else the fewest left.
  let exceeded: WindowState | undefined;
  let fewest = states[0]!;
  for (const s of states) {
    if (s.count > s.limit && (exceeded === undefined || s.resetAt > exceeded.resetAt)) exceeded = s;
    if (s.remaining < fewest.remaining) fewest = s;
  }
  return exceeded ? { state: exceeded, exceeded: true } : { state: fewest, exceeded: false };
}
