// Transactional outbox: events are written in the same transaction as the change they describe, and a
// relay publishes them, then deletes them (decision 0003: every row is an event not yet published).
// One relay publishes at a time (advisory lock), so per-link order survives any number of management
// instances; a crash between publish and delete re-publishes (at-least-once), which consumers absorb
// because events carry ids and absolute state.
import { randomUUID } from "node:crypto";
import { type EventBus, withTimeout } from "@kurz/bus";
import type { LinkEvent, LinkHealthTransition, LinkRecord } from "@kurz/contracts";
import { TOPICS } from "@kurz/contracts";
import { type Link, type Prisma, type PrismaClient, poolOf } from "@kurz/db";
import { PollLoop } from "@kurz/service-kit";

type Tx = Prisma.TransactionClient;
/** The relay's advisory lock: whoever holds it (a test, to keep events in the table) stops every relay. */
export const RELAY_LOCK = 727_001;
/**
 * Rounds run because of a wake start at most this often (decision 0044). Every create wakes the relay,
 * and a round is a transaction and a publish whatever it carries (decision 0003): at hundreds of
 * creates a second, rounds back to back carried a few events each, and their cost per create was a
 * large part of management's and Postgres's CPU. At most 40 rounds a second carry the same events in
 * fewer, larger batches (fewer, larger deliveries for the consumers too); an event waits at most this
 * long more, and the first wake after a quiet spell still runs at once.
 */
export const RELAY_WAKE_INTERVAL_MS = 25;

/** An outbox row as node-postgres reads it (int8 as a string, jsonb parsed). */
interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  payload: unknown;
  headers: Record<string, string> | null;
}

type RecordEventType = "link.created" | "link.updated" | "link.deleted";

function eventHead(link: Link, occurredAt: Date) {
  return {
    v: 1 as const,
    link_id: link.id,
    account_id: link.accountId,
    short_code: link.shortCode,
    occurred_at: occurredAt.toISOString(),
    // Fixed when the event is written, so a re-publish of the row carries the same id (webhook dedup).
    event_id: randomUUID(),
  };
}

function linkRecordOf(link: Link): LinkRecord {
  return {
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
  };
}

export function linkEvent(type: RecordEventType, link: Link, occurredAt = new Date()): LinkEvent {
  const head = eventHead(link, occurredAt);
  // A deleted link's details no longer exist anywhere; the event names it and nothing more.
  if (type === "link.deleted") return { ...head, type };
  return { ...head, type, link: linkRecordOf(link) };
}

/** A link that became broken or recovered (docs/health.md), with the check that decided it. */
export function linkHealthEvent(
  type: "link.broken" | "link.recovered",
  link: Link,
  health: LinkHealthTransition,
  occurredAt = new Date(),
): LinkEvent {
  return { ...eventHead(link, occurredAt), type, link: linkRecordOf(link), health };
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
      /** How long a round's publish may take before the round gives up; default 30 s. */
      publishTimeoutMs?: number;
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

  /**
   * Returns true when a full batch went out (there may be more waiting). On the node-postgres pool, not
   * through Prisma (decision 0003): as an interactive Prisma transaction a round cost management about
   * 3 ms of CPU even when it found nothing, so five idle polls a second were most of an idle instance's
   * CPU, and up to 40 rounds a second under load a part of a create's. A round is two round trips,
   * three with events: the constants and ids are inlined (numbers only), so each trip may carry
   * several statements.
   */
  async publishBatch(): Promise<boolean> {
    const size = Math.trunc(this.opts.batchSize ?? 500);
    const client = await poolOf(this.prisma).connect();
    let broken: Error | undefined;
    // A checked-out client has no listener of its own (the pool's is for idle ones): without this, a
    // connection reset during a round (Postgres restarted) is an uncaught exception that ends the process.
    const onError = (err: Error) => {
      broken = err;
    };
    client.on("error", onError);
    try {
      // The lock is the InitPlan of the read: taken once, and when another session holds it the read
      // scans nothing and the round ends (held or empty, there is nothing for this relay to do).
      const [, read] = (await client.query(
        `BEGIN; SELECT id, topic, key, payload, headers FROM outbox_events
         WHERE (SELECT pg_try_advisory_xact_lock(${RELAY_LOCK})) ORDER BY id LIMIT ${size}`,
      )) as unknown as [unknown, { rows: OutboxRow[] }];
      const rows = read.rows;
      if (rows.length === 0) {
        await client.query("COMMIT");
        return false;
      }
      const byTopic = new Map<string, { key: string; value: unknown; headers: Record<string, string> }[]>();
      for (const r of rows) {
        const list = byTopic.get(r.topic) ?? [];
        list.push({ key: r.key, value: r.payload, headers: r.headers ?? {} });
        byTopic.set(r.topic, list);
      }
      // Bounded as the Prisma transaction was (its timeout): a publish that hangs must not hold the
      // lock, and every relay with it, for ever.
      await withTimeout(
        async () => {
          for (const [topic, messages] of byTopic) await this.bus.publish(topic, messages);
        },
        this.opts.publishTimeoutMs ?? 30_000,
        "outbox publish",
      );
      // Deleted, not marked: a mark was an UPDATE writing a new version of the row (payload and all)
      // and an entry in each index, and the marked rows stayed forever (decision 0003). BigInt turns
      // each id into plain digits (or throws), so the inlined list is numbers only.
      const ids = rows.map((r) => BigInt(r.id)).join(",");
      await client.query(`DELETE FROM outbox_events WHERE id IN (${ids}); COMMIT`);
      return rows.length === size;
    } catch (err) {
      // Nothing of a failed round commits: its events stay for the next one (at-least-once).
      await client.query("ROLLBACK").catch((rollbackErr: unknown) => {
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      });
      throw err;
    } finally {
      client.removeListener("error", onError);
      // A connection that broke, or whose rollback failed, is in an unknown state: the pool closes it.
      client.release(broken);
    }
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
