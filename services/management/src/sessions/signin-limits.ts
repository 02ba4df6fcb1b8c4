// Failed sign-ins are budgeted per account (by e-mail, whether or not it exists, so the answer
// does not reveal which addresses have accounts) and per client (the keyed address hash the gateway
// sends). A spent budget answers 429 before the password is checked, so a guessing run costs
// neither argon2 time nor guesses beyond the budget (docs/security.md, "Sessions").
import { createHash } from "node:crypto";
import { RATE_LIMIT_HEADERS } from "@kurz/contracts";
import { apiError, serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";

export interface SigninLimits {
  perAccount: number;
  perClient: number;
  windowSeconds: number;
}

export const signinLimitsFrom = (config: {
  SIGNIN_ATTEMPTS_PER_ACCOUNT: number;
  SIGNIN_ATTEMPTS_PER_CLIENT: number;
  SIGNIN_WINDOW_MINUTES: number;
}): SigninLimits => ({
  perAccount: config.SIGNIN_ATTEMPTS_PER_ACCOUNT,
  perClient: config.SIGNIN_ATTEMPTS_PER_CLIENT,
  windowSeconds: Math.max(1, Math.round(config.SIGNIN_WINDOW_MINUTES * 60)),
});

interface Budget {
  key: string;
  limit: number;
}

const sha = (value: string) => createHash("sha256").update(value).digest("hex");

function budgets(limits: SigninLimits, email: string, clientHash: string | null): Budget[] {
  const list: Budget[] = [{ key: `signin-fail:account:${sha(email)}`, limit: limits.perAccount }];
  if (clientHash) list.push({ key: `signin-fail:client:${clientHash}`, limit: limits.perClient });
  return list;
}

const unavailable = () => serviceUnavailable("Sign-in is temporarily unavailable; retry shortly");

/** Throws 429 (with Retry-After and X-RateLimit-*) when either budget is spent. */
export async function checkSigninBudget(
  redis: Redis,
  limits: SigninLimits,
  email: string,
  clientHash: string | null,
): Promise<void> {
  const list = budgets(limits, email, clientHash);
  const batch = redis.multi();
  for (const b of list) batch.get(b.key).ttl(b.key);
  const read = await batch.exec().catch(() => null);
  if (!read) throw unavailable();
  for (let i = 0; i < list.length; i++) {
    const count = Number(read[2 * i]?.[1] ?? 0);
    const ttl = Number(read[2 * i + 1]?.[1] ?? -1);
    const budget = list[i]!;
    if (count < budget.limit) continue;
    const retryAfter = Math.max(1, ttl > 0 ? ttl : limits.windowSeconds);
    throw apiError(
      "RATE_LIMIT_EXCEEDED",
      `Too many failed sign-in attempts. Retry after ${retryAfter} seconds.`,
      { limit: budget.limit, window: `${limits.windowSeconds}s`, retry_after: retryAfter },
      {
        headers: {
          [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter),
          [RATE_LIMIT_HEADERS.limit]: String(budget.limit),
          [RATE_LIMIT_HEADERS.remaining]: "0",
          [RATE_LIMIT_HEADERS.reset]: String(Math.floor(Date.now() / 1000) + retryAfter),
        },
      },
    );
  }
}

/** Counts one failed attempt against both budgets (each window starts at its first failure). */
export async function recordSigninFailure(
  redis: Redis,
  limits: SigninLimits,
  email: string,
  clientHash: string | null,
): Promise<void> {
  const batch = redis.multi();
  for (const b of budgets(limits, email, clientHash)) {
    // SET NX starts the window at the first failure; INCR keeps its expiry.
    batch.set(b.key, 0, "EX", limits.windowSeconds, "NX").incr(b.key);
  }
  await batch.exec().catch(() => {});
}

/** A successful sign-in clears the account's count (the client's stays: it may be guessing others). */
export async function clearAccountFailures(redis: Redis, limits: SigninLimits, email: string): Promise<void> {
  await redis.del(budgets(limits, email, null)[0]!.key).catch(() => {});
}
