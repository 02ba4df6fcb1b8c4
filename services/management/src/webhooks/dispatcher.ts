// The webhook dispatcher (docs/webhooks.md, docs/decisions/0022-webhook-dispatcher-in-management.md):
// a worker inside management that sends the deliveries waiting in Postgres. Per tick it
//  1. cuts waiting clicks into `click` deliveries (up to clickBatchMax clicks, or whatever waited
//     clickBatchMs), each with its own id;
//  2. claims due deliveries with FOR UPDATE SKIP LOCKED under a lease (so any number of management
//     instances share the work, and a crash mid-request frees the row when the lease runs out), taking
//     only the head of each link's queue: a link's later event never goes out before its earlier one;
//  3. sends them (signed, through the SSRF guard) and records the outcome: delivered, or the next
//     attempt after an exponential backoff with jitter, or failed once the retry window is over.
// An endpoint whose every attempt failed for disableAfterMs, at least disableAfterFailures in a row, is
// disabled until its owner re-enables it. All times come from `now`, so tests can run a day in seconds.
import { randomUUID } from "node:crypto";
import type { WebhookPayload } from "@kurz/contracts";
import { type PrismaClient, poolOf } from "@kurz/db";
import { type Logger, PollLoop } from "@kurz/service-kit";
import pLimit from "p-limit";
import { ATTEMPT_ERRORS } from "./attempt-error.ts";
import { deliveryId } from "./enqueue.ts";
import type { SecretBox } from "./secrets.ts";
import type { SendResult, WebhookSender } from "./sender.ts";
import { webhookHeaders } from "./signature.ts";

export interface DispatcherOptions {
  pollMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  retryWindowMs: number;
  disableAfterFailures: number;
  disableAfterMs: number;
  clickBatchMax: number;
  clickBatchMs: number;
  /** Delivered and failed deliveries older than this are purged from the log. */
  logRetentionMs: number;
  /** Requests in flight at once, over all endpoints. */
  concurrency?: number;
  /** Deliveries claimed per tick. */
  claimBatch?: number;
  /** How long a claimed delivery is reserved; longer than the sender's timeout. */
  leaseMs: number;
}

export interface DispatcherDeps {
  prisma: PrismaClient;
  sender: Pick<WebhookSender, "send">;
  secrets: SecretBox;
  logger: Logger;
  now?: () => number;
  random?: () => number;
}

/** The wait before attempt `attempts + 1`: doubling from base, capped, with half of it random. */
export function retryDelayMs(attempts: number, base: number, max: number, random = Math.random): number {
  const full = Math.min(max, base * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + random() * (full / 2));
}

interface Claimed {
  id: string;
  endpoint_id: string;
  payload: WebhookPayload;
  attempts: number;
  give_up_at: Date;
}

export class WebhookDispatcher {
  /** Attempts recorded so far: delivered, failed for good, or failed with a retry scheduled (a metric). */
  readonly outcomes = { delivered: 0, retrying: 0, failed: 0 };
  private readonly loop: PollLoop;
  private lastPurge = 0;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly deps: DispatcherDeps,
    private readonly opts: DispatcherOptions,
  ) {
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.loop = new PollLoop({
      pollMs: opts.pollMs,
      round: async () => (await this.tick()) > 0,
      onError: (err) => deps.logger.error({ err: String(err) }, "webhook dispatcher tick failed; retrying"),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** New work was written: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One round: batch clicks, send what is due. Returns how many deliveries were attempted. */
  async tick(): Promise<number> {
    await this.batchClicks();
    const claimed = await this.claim();
    const limit = pLimit(this.opts.concurrency ?? 8);
    await Promise.all(claimed.map((d) => limit(() => this.attempt(d))));
    await this.purgeOld();
    return claimed.length;
  }

  async batchClicks(): Promise<void> {
    const now = this.now();
    // This read and the claim run on every tick of every instance, mostly finding nothing: on the plain
    // pool, as the outbox relay's (decision 0003), they cost an idle instance a fraction of what Prisma
    // queries did. node-postgres gives count(*) as a string.
    const { rows: waiting } = await poolOf(this.deps.prisma).query<{
      endpoint_id: string;
      n: string;
      oldest: Date;
    }>({
      name: "kurz_webhook_clicks_waiting",
      text: `SELECT c.endpoint_id, count(*) AS n, min(c.created_at) AS oldest
             FROM webhook_clicks c JOIN webhook_endpoints e ON e.id = c.endpoint_id AND e.enabled
             WHERE c.delivery_id IS NULL GROUP BY c.endpoint_id`,
    });
    for (const w of waiting) {
      let left = Number(w.n);
      if (left < this.opts.clickBatchMax && w.oldest.getTime() > now - this.opts.clickBatchMs) continue;
      // Full batches first; the remainder goes too, since it has waited long enough or fills up later.
      for (let round = 0; left > 0 && round < 100; round++) {
        const cut = await this.cutClickBatch(w.endpoint_id, new Date(now));
        if (cut === 0) break;
        left -= cut;
        if (left < this.opts.clickBatchMax && w.oldest.getTime() > now - this.opts.clickBatchMs) break;
      }
    }
  }

  private cutClickBatch(endpointId: string, now: Date): Promise<number> {
    return this.deps.prisma.$transaction(async (tx) => {
      const rows = await tx.$queryRaw<{ click_id: string; payload: unknown }[]>`
        SELECT click_id, payload FROM webhook_clicks
        WHERE endpoint_id = ${endpointId}::uuid AND delivery_id IS NULL
        ORDER BY ts, click_id LIMIT ${this.opts.clickBatchMax}
        FOR UPDATE SKIP LOCKED`;
      if (rows.length === 0) return 0;
      const eventId = randomUUID();
      const id = deliveryId(endpointId, eventId);
      const payload: WebhookPayload = {
        type: "click",
        timestamp: now.toISOString(),
        data: { clicks: rows.map((r) => r.payload) as never },
      };
      await tx.webhookDelivery.create({
        data: {
          id,
          endpointId,
          eventId,
          eventType: "click",
          orderKey: null,
          payload: payload as object,
          nextAttemptAt: now,
          giveUpAt: new Date(now.getTime() + this.opts.retryWindowMs),
          createdAt: now,
        },
      });
      const ids = rows.map((r) => r.click_id);
      await tx.$executeRaw`
        UPDATE webhook_clicks SET delivery_id = ${id}
        WHERE endpoint_id = ${endpointId}::uuid AND click_id = ANY(${ids}::uuid[])`;
      return rows.length;
    });
  }

  private async claim(): Promise<Claimed[]> {
    const now = new Date(this.now());
    const lease = new Date(now.getTime() + this.opts.leaseMs);
    // Only a link's oldest pending delivery is eligible, so its events go out one after another in
    // order; clicks (no order key) are not held back by each other.
    const { rows } = await poolOf(this.deps.prisma).query<Claimed>({
      name: "kurz_webhook_claim",
      text: `UPDATE webhook_deliveries AS u SET next_attempt_at = $1
             FROM (
               SELECT d.id FROM webhook_deliveries d
               JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled
               WHERE d.status = 'pending' AND d.next_attempt_at <= $2
                 AND NOT EXISTS (
                   SELECT 1 FROM webhook_deliveries p
                   WHERE p.endpoint_id = d.endpoint_id AND p.order_key = d.order_key
                     AND p.status = 'pending' AND p.seq < d.seq)
               ORDER BY d.next_attempt_at, d.seq
               LIMIT $3
               FOR UPDATE OF d SKIP LOCKED
             ) AS due
             WHERE u.id = due.id
             RETURNING u.id, u.endpoint_id, u.payload, u.attempts, u.give_up_at`,
      values: [lease, now, this.opts.claimBatch ?? 100],
    });
    return rows;
  }

  private async attempt(d: Claimed): Promise<void> {
    const { prisma } = this.deps;
    const endpoint = await prisma.webhookEndpoint.findUnique({
      where: { id: d.endpoint_id },
      select: { url: true, secretCiphertext: true, enabled: true },
    });
    if (!endpoint?.enabled) return; // disabled meanwhile: the row waits, its lease runs out
    let result: SendResult;
    const started = this.now();
    try {
      const secret = this.deps.secrets.open(endpoint.secretCiphertext);
      // Members in the documented order (jsonb stores them in its own).
      const { type, timestamp: at, data } = d.payload;
      const body = JSON.stringify({ type, timestamp: at, data });
      const timestamp = Math.floor(started / 1000);
      result = await this.deps.sender.send(endpoint.url, webhookHeaders(secret, d.id, timestamp, body), body);
    } catch (err) {
      // Only a secret that cannot be opened lands here (WEBHOOK_SECRETS_KEY changed); never log it.
      this.deps.logger.error({ endpoint: d.endpoint_id, err: (err as Error).name }, "webhook not signed");
      result = { ok: false, status: null, latencyMs: 0, error: ATTEMPT_ERRORS.cannotSign };
    }
    await this.record(d, result);
  }

  private async record(d: Claimed, r: SendResult): Promise<void> {
    const { prisma } = this.deps;
    const now = new Date(this.now());
    const attempts = d.attempts + 1;
    const common = {
      attempts,
      responseCode: r.status,
      latencyMs: r.latencyMs,
      error: r.error,
      lastAttemptAt: now,
    };
    if (r.ok) {
      await prisma.$transaction([
        prisma.webhookDelivery.update({
          where: { id: d.id },
          data: { ...common, status: "delivered", deliveredAt: now, nextAttemptAt: null },
        }),
        prisma.webhookEndpoint.updateMany({
          where: {
            id: d.endpoint_id,
            OR: [{ consecutiveFailures: { gt: 0 } }, { failingSince: { not: null } }],
          },
          data: { consecutiveFailures: 0, failingSince: null },
        }),
      ]);
      this.outcomes.delivered++;
      return;
    }
    const giveUp = now.getTime() >= d.give_up_at.getTime();
    const next = new Date(
      now.getTime() + retryDelayMs(attempts, this.opts.retryBaseMs, this.opts.retryMaxMs, this.random),
    );
    await prisma.webhookDelivery.update({
      where: { id: d.id },
      data: giveUp
        ? { ...common, status: "failed", nextAttemptAt: null }
        : { ...common, nextAttemptAt: next.getTime() > d.give_up_at.getTime() ? d.give_up_at : next },
    });
    if (giveUp) this.outcomes.failed++;
    else this.outcomes.retrying++;
    // One statement decides, with the row locked, so concurrent failures cannot race past the rule.
    const cutoff = new Date(now.getTime() - this.opts.disableAfterMs);
    const [outcome] = await prisma.$queryRaw<{ just_disabled: boolean }[]>`
      UPDATE webhook_endpoints AS e SET
        consecutive_failures = s.failures,
        failing_since = s.since,
        enabled = e.enabled AND NOT s.disable,
        disabled_reason = CASE WHEN e.enabled AND s.disable THEN 'failing' ELSE e.disabled_reason END,
        disabled_at = CASE WHEN e.enabled AND s.disable THEN ${now} ELSE e.disabled_at END
      FROM (
        SELECT id, enabled AS was_enabled, consecutive_failures + 1 AS failures,
               COALESCE(failing_since, ${now}) AS since,
               (consecutive_failures + 1 >= ${this.opts.disableAfterFailures}
                AND COALESCE(failing_since, ${now}) <= ${cutoff}) AS disable
        FROM webhook_endpoints WHERE id = ${d.endpoint_id}::uuid FOR UPDATE
      ) AS s
      WHERE e.id = s.id
      RETURNING (s.was_enabled AND s.disable) AS just_disabled`;
    if (outcome?.just_disabled) {
      this.deps.logger.warn({ endpoint: d.endpoint_id }, "webhook endpoint disabled after repeated failures");
    }
  }

  private async purgeOld(): Promise<void> {
    const now = this.now();
    if (now - this.lastPurge < 60 * 60_000) return;
    this.lastPurge = now;
    const before = new Date(now - this.opts.logRetentionMs);
    await this.deps.prisma.webhookDelivery.deleteMany({
      where: { status: { in: ["delivered", "failed"] }, createdAt: { lt: before } },
    });
    await this.deps.prisma.$executeRaw`
      DELETE FROM webhook_clicks c WHERE c.delivery_id IS NOT NULL AND c.created_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = c.delivery_id)`;
  }
}
