// What a route that sends e-mail on request spends: per address and per client, in an hour, so that
// no one can flood a mailbox through Kurz.
import { createHash } from "node:crypto";
import { apiError, serviceUnavailable } from "@kurz/service-kit";
import type { Redis } from "ioredis";

/** E-mails of one kind per address and per client in a window of an hour. */
export const MAIL_REQUESTS = { perAddress: 3, perClient: 20, windowSeconds: 3600 } as const;

/** Counts one request of `kind` for `email`; 429 once either budget is spent, 503 without Redis. */
export async function spendMailBudget(
  redis: Redis,
  kind: string,
  email: string,
  clientHash: string | null,
): Promise<void> {
  const sha = createHash("sha256").update(email).digest("hex");
  const budgets: { key: string; limit: number }[] = [
    { key: `mail:${kind}:address:${sha}`, limit: MAIL_REQUESTS.perAddress },
  ];
  if (clientHash) budgets.push({ key: `mail:${kind}:client:${clientHash}`, limit: MAIL_REQUESTS.perClient });
  const batch = redis.multi();
  for (const b of budgets) batch.set(b.key, 0, "EX", MAIL_REQUESTS.windowSeconds, "NX").incr(b.key);
  const counts = await batch.exec().catch(() => null);
  if (!counts) throw serviceUnavailable("E-mail requests are temporarily unavailable; retry shortly");
  budgets.forEach((b, i) => {
    if (Number(counts[2 * i + 1]?.[1] ?? 0) > b.limit) {
      throw apiError("RATE_LIMIT_EXCEEDED", "Too many such e-mails requested; retry within the hour", {
        limit: b.limit,
        window: `${MAIL_REQUESTS.windowSeconds}s`,
      });
    }
  });
}
