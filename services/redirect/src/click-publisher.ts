// Collects click events and publishes them in batches, so a redirect never waits on the bus and the
// bus sees a few large writes instead of one per click. While the bus is down, events stay in memory
// up to `maxBuffered`, then go to the disk spool (see click-spool.ts); both are replayed oldest first
// when it returns. An event is dropped only when the spool is full or unwritable, and every dropped
// event is counted.
import type { EventBus } from "@kurz/bus";
import { type ClickEvent, clickMessages, TOPICS } from "@kurz/contracts";
import type { ClickJournal } from "./click-journal.ts";
import type { ClickSpool } from "./click-spool.ts";

export interface ClickPublisherOptions {
  bus: EventBus;
  spool: ClickSpool;
  /** Where each click is written before its answer; told when a click is safe elsewhere. */
  journal?: ClickJournal;
  topic?: string;
  maxBatch?: number;
  flushIntervalMs?: number;
  /** In-memory events before new ones go to the spool. */
  maxBuffered?: number;
  logger?: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
}

export interface ClickMetrics {
  published: number;
  dropped: number;
  buffered: number;
  spooled: number;
}

const MAX_BACKOFF_MS = 5_000;
// A publish that takes longer than this counts as failed for the backoff, and the redirect keeps
// buffering and spooling. The attempt itself may still land (kafkajs keeps retrying through an
// outage), so it lingers: nothing is published again until it settles, and if it lands its clicks
// count as published. Sending them again at once put every click of a >3 s Kafka outage on the bus
// twice (kafka-outage.test.ts).
const PUBLISH_TIMEOUT_MS = 3_000;
// Past this, a lingering attempt is given up on and its clicks are sent again: a bus that holds a
// publish this long may deliver them twice (click ids deduplicate at ingest), but no click waits on it forever.
const LINGER_MAX_MS = 60_000;

/** A timed-out publish that may still land, and what to do if it does. */
interface Lingering {
  landed: Promise<boolean>;
  startedAt: number;
  onLanded: () => void;
}

export class ClickPublisher {
  private buffer: ClickEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = 0;
  private failing = false;
  private droppedHere = 0;
  private lingering: Lingering | null = null;
  /** Clicks handed to the spool that its next write has not synced yet (still journaled). */
  private spooling: ClickEvent[] = [];
  published = 0;

  private readonly bus: EventBus;
  private readonly spool: ClickSpool;
  private readonly topic: string;
  private readonly maxBatch: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;

  constructor(private readonly opts: ClickPublisherOptions) {
    this.bus = opts.bus;
    this.spool = opts.spool;
    this.topic = opts.topic ?? TOPICS.clicks;
    this.maxBatch = opts.maxBatch ?? 1_000;
    this.flushIntervalMs = opts.flushIntervalMs ?? 50;
    this.maxBuffered = opts.maxBuffered ?? 20_000;
    // A spool left by a previous run is replayed first; new events queue behind it.
    if (this.spool.pending > 0) this.schedule();
  }

  get metrics(): ClickMetrics {
    return {
      published: this.published,
      dropped: this.droppedHere + this.spool.dropped,
      buffered: this.buffer.length,
      spooled: this.spool.pending,
    };
  }

  /** A click a previous run journaled: published like a new one, but already in the journal. */
  replay(event: ClickEvent): void {
    this.enqueue(event);
  }

  push(event: ClickEvent): void {
    this.opts.journal?.append(event);
    this.enqueue(event);
  }

  private enqueue(event: ClickEvent): void {
    // Once anything is spooled, newer events follow it there: replay stays in click order.
    if (this.buffer.length >= this.maxBuffered || this.spool.pending > 0) {
      if (this.spool.append(event)) this.spooling.push(event);
      else {
        this.droppedHere++;
        this.opts.journal?.confirm([event]);
      }
      this.schedule();
      return;
    }
    this.buffer.push(event);
    if (this.buffer.length >= this.maxBatch && !this.failing) void this.flush();
    else this.schedule();
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushIntervalMs + this.backoffMs);
    this.timer.unref();
  }

  /** Publishes everything buffered and spooled now; concurrent calls share one flush. */
  flush(): Promise<void> {
    if (!this.flushing) this.flushing = this.drain().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async drain(): Promise<void> {
    try {
      await this.settleLingering();
      if (this.spooling.length > 0) {
        // Synced to the spool, which replays them itself: the journal no longer needs them.
        const synced = this.spooling;
        this.spooling = [];
        await this.spool.writeQueued();
        this.opts.journal?.confirm(synced);
      }
      // What is buffered now, plus any full batches: clicks that arrive during a round trip wait for the
      // timer. Publishing them at once made a busy redirect send one small MULTI per round trip
      // (~500/s of 1-2 clicks per entry), and ioredis kept every one alive until its reply.
      let due = this.buffer.length;
      while (due > 0) {
        const batch = this.buffer.slice(0, Math.min(due, this.maxBatch));
        // The batch stays at the head of the buffer until it is out, so a late landing can take it off.
        const taken = () => {
          this.buffer.splice(0, batch.length);
          this.opts.journal?.confirm(batch);
          this.recovered(batch.length);
        };
        await this.publish(batch, taken);
        taken();
        due -= batch.length;
        if (due === 0) due = this.buffer.length - (this.buffer.length % this.maxBatch);
      }
      // Spooled clicks are newer than any still buffered: replay them only once the buffer is empty.
      while (this.buffer.length === 0 && this.spool.pending > 0) {
        await this.spool.writeQueued();
        const { events, next, lines } = await this.spool.readBatch(this.maxBatch);
        if (lines === 0) break;
        const taken = () => {
          this.spool.commit(next, lines);
          this.recovered(events.length);
        };
        if (events.length > 0) await this.publish(events, taken);
        taken();
      }
      await this.spool.truncateIfDrained();
      if (this.buffer.length > 0 || this.spool.pending > 0) this.schedule();
    } catch (err) {
      if (!this.failing)
        this.opts.logger?.error(
          { err: err instanceof Error ? err.message : String(err) },
          "click publishing failed; buffering and retrying",
        );
      this.failing = true;
      this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), MAX_BACKOFF_MS);
      this.schedule();
    }
  }

  /** Resolves once the bus has the events; on a timeout, leaves the attempt lingering and throws. */
  private async publish(events: ClickEvent[], onLanded: () => void): Promise<void> {
    const attempt = this.bus.publish(this.topic, clickMessages(events, this.bus.partitionsByKey));
    const outcome = await this.within(
      PUBLISH_TIMEOUT_MS,
      attempt.then(() => true),
    );
    if (outcome === undefined) {
      this.lingering = {
        landed: attempt.then(
          () => true,
          () => false,
        ),
        startedAt: Date.now(),
        onLanded,
      };
      throw new Error("bus publish timed out");
    }
  }

  /**
   * Waits (a publish timeout at most) for a timed-out attempt to settle. Landed: its clicks are
   * published. Failed, or given up on after LINGER_MAX_MS: they are sent again. Still pending:
   * throws, and the drain backs off as for a failed publish.
   */
  private async settleLingering(): Promise<void> {
    const lingering = this.lingering;
    if (!lingering) return;
    const left = LINGER_MAX_MS - (Date.now() - lingering.startedAt);
    const landed = await this.within(Math.max(0, Math.min(left, PUBLISH_TIMEOUT_MS)), lingering.landed);
    if (landed === undefined && left > PUBLISH_TIMEOUT_MS)
      throw new Error("an earlier bus publish is still pending");
    this.lingering = null;
    if (landed === true) lingering.onLanded();
    else if (landed === undefined)
      this.opts.logger?.warn(
        { afterMs: LINGER_MAX_MS },
        "gave up on a pending bus publish; sending its clicks again",
      );
  }

  /** The promise's value, or undefined if it has not settled within `ms`. Rejections propagate. */
  private async within<T>(ms: number, promise: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private recovered(count: number): void {
    this.published += count;
    if (this.failing)
      this.opts.logger?.warn(
        { buffered: this.buffer.length, spooled: this.spool.pending },
        "click publishing recovered",
      );
    this.failing = false;
    this.backoffMs = 0;
  }

  /**
   * On shutdown: keep publishing until everything is out or the deadline passes, then move what is
   * left in memory to the spool, where the next start replays it.
   */
  async close(deadlineMs = 4_000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    while ((this.buffer.length > 0 || this.spool.pending > 0) && Date.now() < deadline) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      await this.flush();
      if (this.buffer.length > 0 || this.spool.pending > 0)
        await new Promise((r) => setTimeout(r, Math.min(this.backoffMs || 100, 1_000)));
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushing;
    if (this.buffer.length > 0) {
      const left = this.buffer;
      this.buffer = [];
      try {
        await this.spool.prepend(left);
        this.opts.journal?.confirm(left);
        this.opts.logger?.warn({ spooled: this.spool.pending }, "bus unavailable at exit: clicks spooled");
      } catch (err) {
        this.droppedHere += left.length;
        this.opts.logger?.error(
          { lost: left.length, err: err instanceof Error ? err.message : String(err) },
          "click events could not be published or spooled before exit",
        );
      }
    }
    await this.spool.writeQueued();
    this.opts.journal?.confirm(this.spooling);
    this.spooling = [];
    await this.spool.close();
  }
}
