// Limits password attempts on a link in two budgets, both shared by every redirect instance:
// - per link and client (an IPv6 client by its /64): one guesser is stopped quickly;
// - per link, all clients together: a guesser spread over many addresses is stopped too. The price
//   is that such a flood locks the link for everyone until the window ends; the alternative is an
//   unbounded number of guesses at a password people chose.
// Every attempt counts before the password is checked, so parallel guesses cannot slip past either
// limit. The right password clears its client's count and is taken back from the link's count, so
// the link budget counts wrong passwords only.
import type { Redis } from "ioredis";
import { clientKey } from "./client-key.ts";
import { WindowCounter } from "./window-counter.ts";

export interface Attempt {
  allowed: boolean;
  /** Seconds until the exhausted budget's window ends (for Retry-After). */
  retryAfter: number;
}

export interface PasswordLimits {
  /** Attempts per link and client within the window. */
  perClient: number;
  /** Wrong attempts per link, all clients together, within the window. */
  perLink: number;
  windowSeconds: number;
}

export class PasswordLimiter {
  private readonly counter: WindowCounter;

  constructor(
    redis: Redis,
    private readonly limits: PasswordLimits,
  ) {
    this.counter = new WindowCounter(redis, limits.windowSeconds);
  }

  /** Attempts refused so far (a metric). */
  refusals = 0;

  async attempt(code: string, ip: string | null): Promise<Attempt> {
    const [client, link] = await this.counter.hit(clientCount(code, ip), linkCount(code));
    const clientOver = client!.count > this.limits.perClient;
    const linkOver = link!.count > this.limits.perLink;
    if (clientOver || linkOver) this.refusals++;
    const retryAfter = Math.max(clientOver ? client!.retryAfter : 0, linkOver ? link!.retryAfter : 0);
    return { allowed: !clientOver && !linkOver, retryAfter: Math.max(1, retryAfter) };
  }

  /** The right password: its client starts over, and it does not use up the link's budget. */
  async succeeded(code: string, ip: string | null): Promise<void> {
    await Promise.all([this.counter.reset(clientCount(code, ip)), this.counter.undo(linkCount(code))]);
  }
}

const clientCount = (code: string, ip: string | null) => `pwlimit:${code}:${clientKey(ip)}`;
const linkCount = (code: string) => `pwlimit:${code}`;
