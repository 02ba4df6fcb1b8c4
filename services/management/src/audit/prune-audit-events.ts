// The audit log's retention: events older than their workspace's `audit_retention_days` are deleted,
// a bounded batch at a time, by a loop in every management process (deleting twice is harmless).
import type { PrismaClient } from "@kurz/db";
import { PollLoop } from "@kurz/service-kit";
import { deleteInBatches } from "../db/delete-in-batches.ts";

/**
 * Deletes events older than their workspace's retention as of `now`; at most `batch` rows per
 * statement and `maxBatches` statements per call. Answers how many went.
 */
export async function pruneAuditEvents(
  prisma: PrismaClient,
  now: Date,
  opts: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  return deleteInBatches(
    opts,
    (batch) => prisma.$executeRaw`
      DELETE FROM audit_events WHERE id IN (
        SELECT e.id FROM accounts a
        CROSS JOIN LATERAL (
          SELECT id FROM audit_events
          WHERE account_id = a.id AND occurred_at < ${now}::timestamptz - make_interval(days => a.audit_retention_days)
          LIMIT ${batch}
        ) e
        LIMIT ${batch}
      )`,
  );
}

export class AuditPrune {
  private readonly loop: PollLoop;

  constructor(
    prisma: PrismaClient,
    opts: {
      /** Default hourly: a day's retention is coarse enough for that. */
      pollMs?: number;
      /** The clock retention is measured against (tests pass their own). */
      now?: () => Date;
      logger: { warn(o: object, m?: string): void };
    },
  ) {
    const now = opts.now ?? (() => new Date());
    this.loop = new PollLoop({
      pollMs: opts.pollMs ?? 3_600_000,
      round: async () => (await pruneAuditEvents(prisma, now())) > 0,
      onError: (err) =>
        opts.logger.warn({ err: String(err) }, "audit log prune failed; retrying next interval"),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
