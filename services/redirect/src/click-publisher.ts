// Collects click events and publishes them in batches, so a redirect never waits on the bus and the
// bus sees a few large writes instead of one per click. When the bus is down, events stay buffered
// (in order) and are retried with backoff; only past `maxBuffered` is anything dropped, and every
// dropped event is counted.
import type { EventBus } from "@kurz/bus";
import { CLICK_BATCH_MAX, type ClickEvent, clickPartitionKey, TOPICS } from "@kurz/contracts";

export interface ClickPublisherOptions {
  bus: EventBus;
  topic?: string;
  maxBatch?: number;
  flushIntervalMs?: number;
  maxBuffered?: number;
  logger?: { warn(o: object, m?: string): void; error(o: object, m?: string): void };
}

export class ClickPublisher {
  private buffer: ClickEvent[] = [];
  private flushing: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private backoffMs = 0;
  private failing = false;
  dropped = 0;
  published = 0;

  private readonly bus: EventBus;
  private readonly topic: string;
  private readonly maxBatch: number;
  private readonly flushIntervalMs: number;
  private readonly maxBuffered: number;

  constructor(private readonly opts: ClickPublisherOptions) {
    this.bus = opts.bus;
    this.topic = opts.topic ?? TOPICS.clicks;
    this.maxBatch = opts.maxBatch ?? 1_000;
    this.flushIntervalMs = opts.flushIntervalMs ?? 50;
    this.maxBuffered = opts.maxBuffered ?? 200_000;
  }

  get buffered(): number {
    return this.buffer.length;
  }

  push(event: ClickEvent): void {
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped++;
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

  /** Publishes everything buffered now; concurrent calls share one flush. */
  flush(): Promise<void> {
    if (!this.flushing) this.flushing = this.drain().finally(() => (this.flushing = null));
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.slice(0, this.maxBatch);
      try {
        await this.bus.publish(this.topic, toMessages(batch));
        this.buffer.splice(0, batch.length);
        this.published += batch.length;
        if (this.failing)
          this.opts.logger?.warn({ buffered: this.buffer.length }, "click publishing recovered");
        this.failing = false;
        this.backoffMs = 0;
      } catch (err) {
        if (!this.failing)
          this.opts.logger?.error({ err }, "click publishing failed; buffering and retrying");
        this.failing = true;
        this.backoffMs = Math.min(Math.max(this.backoffMs * 2, 100), 5_000);
        this.schedule();
        return;
      }
    }
  }

  /** On shutdown: keep trying until everything is out or the deadline passes. */
  async close(deadlineMs = 10_000): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const deadline = Date.now() + deadlineMs;
    while (this.buffer.length > 0 && Date.now() < deadline) {
      await this.flush();
      if (this.buffer.length > 0)
        await new Promise((r) => setTimeout(r, Math.min(this.backoffMs || 100, 1_000)));
    }
    if (this.buffer.length > 0) {
      this.dropped += this.buffer.length;
      this.opts.logger?.error(
        { lost: this.buffer.length },
        "click events could not be published before exit",
      );
      this.buffer = [];
    }
  }
}

/**
 * Groups clicks by partition key (a hash of the link id, so one link's clicks stay in one partition)
 * into messages of at most CLICK_BATCH_MAX: a flush costs a few dozen bus entries, not one per click.
 */
export function toMessages(events: ClickEvent[]) {
  const groups = new Map<string, ClickEvent[]>();
  for (const e of events) {
    const key = clickPartitionKey(e.link_id);
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  const messages: { key: string; value: { v: 1; clicks: ClickEvent[] } }[] = [];
  for (const [key, clicks] of groups) {
    for (let i = 0; i < clicks.length; i += CLICK_BATCH_MAX) {
      messages.push({ key, value: { v: 1, clicks: clicks.slice(i, i + CLICK_BATCH_MAX) } });
    }
  }
  return messages;
}
