// Bulk and import title fetches count against the caller's rate budget (docs/api.md, "Bulk";
// docs/import-export.md). The gateway counts a bulk create or an upload as one request, yet it may fetch
// up to 50 titles (bulk) or one per row (an import); each fetch beyond what the request paid for is
// charged as one request to the same Redis counters the gateway counts in (names from @kurz/contracts),
// so a batch costs what the single creates it replaces would have cost.
import {
  RATE_LIMIT_WINDOWS,
  type RateLimitSpan,
  rateLimitKey,
  rateLimitKeyTtlSeconds,
  rateLimitSubject,
} from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";

// Takes min(wanted, what every window has left) from every window at once, so concurrent batches of
// one key never overdraw it. A counter it creates gets the gateway's expiry (the gateway only sets one
// when its INCR creates the key).
const CHARGE = `
local n = #KEYS
local allowed = tonumber(ARGV[1])
for i = 1, n do
  local left = tonumber(ARGV[1 + i]) - tonumber(redis.call('GET', KEYS[i]) or '0')
  if left < allowed then allowed = left end
end
if allowed <= 0 then return 0 end
for i = 1, n do
  redis.call('INCRBY', KEYS[i], allowed)
  if redis.call('TTL', KEYS[i]) < 0 then redis.call('EXPIRE', KEYS[i], ARGV[1 + n + i]) end
end
return allowed`;

export interface KeyBudget {
  keyId: string;
  perMinute: number;
  perHour: number;
}

/** Charges up to `wanted` requests to the key's v1 budget, as many as it has left; returns how many. */
export function chargeKeyBudget(redis: Redis, budget: KeyBudget, wanted: number, now = Date.now()) {
  return chargeBudget(
    redis,
    rateLimitSubject("v1", budget.keyId),
    [
      { window: RATE_LIMIT_WINDOWS.minute, limit: budget.perMinute },
      { window: RATE_LIMIT_WINDOWS.hour, limit: budget.perHour },
    ],
    wanted,
    now,
  );
}

/** The gateway's budget of a session: one per user (services/gateway/src/authenticate.ts). */
export const sessionBudgetSubject = (userId: string) => `session:${userId}`;

async function chargeBudget(
  redis: Redis,
  subject: string,
  windows: { window: RateLimitSpan; limit: number }[],
  wanted: number,
  now: number,
): Promise<number> {
  if (wanted <= 0) return 0;
  const nowSec = Math.floor(now / 1000);
  const taken = await redis.eval(
    CHARGE,
    windows.length,
    ...windows.map(({ window }) => rateLimitKey(subject, window, nowSec)),
    String(wanted),
    ...windows.map(({ limit }) => String(limit)),
    ...windows.map(({ window }) => String(rateLimitKeyTtlSeconds(window))),
  );
  return Number(taken);
}

/**
 * How many of `wanting` title fetches a bulk request may make: the first is paid by the request itself,
 * the others by the key's remaining budget. Without a key (no budget to charge) or when Redis fails,
 * only the first: the items still get created, with the fallback title.
 */
export async function titleFetchAllowance(
  deps: { prisma: PrismaClient; redis: Redis; logger?: { warn(o: object, m?: string): void } },
  keyId: string | null,
  wanting: number,
): Promise<number> {
  if (wanting <= 1 || keyId === null) return Math.min(wanting, 1);
  try {
    const key = await deps.prisma.apiKey.findUnique({
      where: { id: keyId },
      select: { rateLimitPerMinute: true, rateLimitPerHour: true },
    });
    if (!key) return 1;
    const budget = { keyId, perMinute: key.rateLimitPerMinute, perHour: key.rateLimitPerHour };
    return 1 + (await chargeKeyBudget(deps.redis, budget, wanting - 1));
  } catch (err) {
    deps.logger?.warn({ err: String(err) }, "title budget unavailable; fetching one title only");
    return 1;
  }
}

/**
 * Charges `wanting` title fetches of an import to the budget its job names (`v1:<key id>`: the key's
 * minute and hour windows; `session:<user id>`: the minute window of that user's sessions); returns
 * how many it may make. A key since deleted, an unknown subject or a Redis failure: none.
 */
export async function chargeImportTitles(
  deps: {
    prisma: PrismaClient;
    redis: Redis;
    sessionPerMinute: number;
    logger?: { warn(o: object, m?: string): void };
  },
  budget: string,
  wanting: number,
  now = Date.now(),
): Promise<number> {
  try {
    if (budget.startsWith("session:")) {
      const windows = [{ window: RATE_LIMIT_WINDOWS.minute, limit: deps.sessionPerMinute }];
      return await chargeBudget(deps.redis, budget, windows, wanting, now);
    }
    const keyId = budget.startsWith("v1:") ? budget.slice(3) : null;
    const key =
      keyId === null
        ? null
        : await deps.prisma.apiKey.findUnique({
            where: { id: keyId },
            select: { rateLimitPerMinute: true, rateLimitPerHour: true },
          });
    if (!key || keyId === null) return 0;
    return await chargeKeyBudget(
      deps.redis,
      { keyId, perMinute: key.rateLimitPerMinute, perHour: key.rateLimitPerHour },
      wanting,
      now,
    );
  } catch (err) {
    deps.logger?.warn({ err: String(err) }, "title budget unavailable; the import's rows get host names");
    return 0;
  }
}
