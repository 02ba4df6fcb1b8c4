// Transactional outbox: events are written in the same transaction as the change they describe, and a
// relay publishes them, then deletes them (decision 0042: every row is an event not yet published).
// One relay publishes at a time (advisory lock), so per-link order survives any number of management
// instances; a crash between publish and delete re-publishes (at-least-once), which consumers absorb
// because events carry ids and absolute state.
import { randomUUID } from "node:crypto";
import type { EventBus } from "@kurz/bus";
import type { LinkEvent, LinkRecord } from "@kurz/contracts";
import { TOPICS } from "@kurz/contracts";
import type { Link, Prisma, PrismaClient } from "@kurz/db";
import { PollLoop } from "@kurz/service-kit";

type Tx = Prisma.TransactionClient;
/** The relay's advisory lock: whoever holds it (a test, to keep events in the table) stops every relay. */
export const RELAY_LOCK = 727_001;
/**
 * Rounds run because of a wake start at most this often (decision 0039). Every create wakes the relay,
 * and a round is a transaction of five statements and a publish whatever it carries: at hundreds of
 * creates a second, rounds back to back carried a few events each, and their cost per create was a
 * large part of management's and Postgres's CPU. At most 40 rounds a second carry the same events in
 * fewer, larger batches (fewer, larger deliveries for the consumers too); an event waits at most this
 * long more, and the first wake after a quiet spell still runs at once.
 */
export const RELAY_WAKE_INTERVAL_MS = 25;

export function linkEvent(type: LinkEvent["type"], link: Link): LinkEvent {
  const head = {
    v: 1 as const,
    link_id: link.id,
    account_id: link.accountId,
    short_code: link.shortCode,
    occurred_at: new Date().toISOString(),
    // Fixed when the event is written, so a re-publish of the row carries the same id (webhook dedup).
    event_id: randomUUID(),
  };
  // A deleted link's details no longer exist anywhere; the event names it and nothing more.
  if (type === "link.deleted") return { ...head, type };
  return {
    ...head,
    type,
    link: {
      id: link.id,
      account_id: link.accountId,
      short_code: link.shortCode,
      original_url: link.originalUrl,
      title: link.title,
      is_active: link.isActive,
      expires_at: link.expiresAt?.toISOString() ?? null,
      has_password: link.passwordHash !== null,
      analytics_public: link.analyticsPublic,
      analytics_shared_fields: (link.analyticsSharedFields ?? null) as LinkRecord["analytics_shared_fields"],
    },
  };
}

export async function enqueueLinkEvent(tx: Tx, event: LinkEvent): Promise<void> {
  await enqueueLinkEvents(tx, [event]);
}

/** Many events in one statement (a domain's links deleted together), in the order given. */
export async function enqueueLinkEvents(tx: Tx, events: readonly LinkEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.outboxEvent.createMany({
    data: events.map((event) => ({ topic: TOPICS.links, key: event.link_id, payload: event as object })),
  });
}

export class OutboxRelay {
  private readonly loop: PollLoop;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly bus: EventBus,
    private readonly opts: {
      pollMs: number;
      batchSize?: number;
      /** Default RELAY_WAKE_INTERVAL_MS. */
      wakeIntervalMs?: number;
      logger: { error(o: object, m?: string): void };
    },
  ) {
    this.loop = new PollLoop({
      pollMs: opts.pollMs,
      wakeIntervalMs: opts.wakeIntervalMs ?? RELAY_WAKE_INTERVAL_MS,
      round: () => this.publishBatch(),
      onError: (err) => opts.logger.error({ err: String(err) }, "outbox relay failed; retrying"),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Called after a commit that wrote events, so they go out without waiting for the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Returns true when a full batch went out (there may be more waiting). */
  async publishBatch(): Promise<boolean> {
    const size = this.opts.batchSize ?? 500;
    return this.prisma.$transaction(
      async (tx) => {
        const [lock] = await tx.$queryRaw<
          { locked: boolean }[]
        >`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS locked`;
        if (!lock?.locked) return false;
        const rows = await tx.outboxEvent.findMany({ orderBy: { id: "asc" }, take: size });
        if (rows.length === 0) return false;
        const byTopic = new Map<string, { key: string; value: unknown; headers: Record<string, string> }[]>();
        for (const r of rows) {
          const list = byTopic.get(r.topic) ?? [];
          list.push({ key: r.key, value: r.payload, headers: (r.headers ?? {}) as Record<string, string> });
          byTopic.set(r.topic, list);
        }
        for (const [topic, messages] of byTopic) await this.bus.publish(topic, messages);
        // Deleted, not marked: a mark was an UPDATE writing a new version of the row (payload and all)
        // and an entry in each index, and the marked rows stayed forever (decision 0042).
        await tx.outboxEvent.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
        return rows.length === size;
      },
      { timeout: 30_000 },
    );
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    // Flush what is left so a clean shutdown leaves nothing behind for the next start.
    try {
      while (await this.publishBatch()) {}
    } catch (err) {
      this.opts.logger.error(
        { err: String(err) },
        "outbox flush on shutdown failed; the next start publishes it",
      );
    }
  }
}
