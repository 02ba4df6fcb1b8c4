import { hostname } from "node:os";
import { Redis } from "ioredis";
import { encodeValue } from "../codec.ts";
import { deadLetterMessage } from "../dead-letter.ts";
import { errorInfo, stderrLogger } from "../logger.ts";
import { resolveSubscribeOptions } from "../subscribe-options.ts";
import { topicName } from "../topic-name.ts";
import { withTraceContext } from "../trace-context.ts";
import type {
  BusConfig,
  BusLogger,
  ConsumerLag,
  EventBus,
  OutgoingMessage,
  SubscribeOptions,
  Subscription,
} from "../types.ts";
import { withTimeout } from "../with-timeout.ts";
import { RedisSubscription } from "./redis-subscription.ts";

let consumerSeq = 0;

/**
 * Redis Streams adapter: one stream per topic, consumer groups for work sharing. Ordering per key
 * holds for one consumer per group; more consumers share a stream's entries without regard to keys
 * (see docs/decisions/0003-event-bus.md).
 */
export class RedisBus implements EventBus {
  readonly kind = "redis" as const;
  readonly partitionsByKey = false;
  private readonly redis: Redis;
  private readonly logger: BusLogger;
  private readonly subscriptions = new Set<RedisSubscription<unknown>>();
  /** The topic and group of each running subscription, for lag(). */
  private readonly subscribed = new Map<RedisSubscription<unknown>, { topic: string; group: string }>();
  private lastConnectionErrorAt = 0;
  private closed = false;

  constructor(private readonly config: BusConfig) {
    this.logger = config.logger ?? stderrLogger;
    this.redis = new Redis(config.redisUrl ?? "redis://127.0.0.1:6379", {
      connectionName: `${config.clientId}-bus`,
      // Bounded so that publish() fails instead of queueing forever while Redis is down.
      maxRetriesPerRequest: 3,
    });
    this.redis.on("error", (e) => {
      // ioredis reports every reconnect attempt; one line per 10 s is enough to see the outage.
      if (Date.now() - this.lastConnectionErrorAt < 10_000) return;
      this.lastConnectionErrorAt = Date.now();
      this.logger.warn(errorInfo(e), "bus: redis connection error");
    });
  }

  async publish<T>(topic: string, messages: OutgoingMessage<T>[]): Promise<void> {
    this.assertOpen();
    await this.append(topic, messages, withTraceContext(undefined));
  }

  async subscribe<T>(options: SubscribeOptions<T>): Promise<Subscription> {
    this.assertOpen();
    const opts = resolveSubscribeOptions(options);
    const stream = topicName(this.config.prefix, opts.topic);
    try {
      await this.redis.call(
        "XGROUP",
        "CREATE",
        stream,
        opts.group,
        opts.startFrom === "latest" ? "$" : "0",
        "MKSTREAM",
      );
    } catch (e) {
      if (!(e instanceof Error && e.message.startsWith("BUSYGROUP"))) throw e;
    }
    const subscription: RedisSubscription<T> = new RedisSubscription<T>(opts, {
      redis: this.redis,
      stream,
      // Stable across restarts of the same process slot, unique among subscriptions of a process.
      consumerName:
        opts.consumerName ?? `${this.config.clientId}-${hostname()}-${process.pid}-${++consumerSeq}`,
      claimIdleMs: this.config.redis?.claimIdleMs ?? 60_000,
      maxLen: this.config.redis?.maxLen ?? 1_000_000,
      logger: this.logger,
      deadLetter: (message, why) =>
        this.append(opts.deadLetterTopic, [deadLetterMessage(message, { ...why, group: opts.group })], {}),
      onStopped: () => {
        this.subscriptions.delete(subscription as RedisSubscription<unknown>);
        this.subscribed.delete(subscription as RedisSubscription<unknown>);
      },
    });
    this.subscriptions.add(subscription as RedisSubscription<unknown>);
    this.subscribed.set(subscription as RedisSubscription<unknown>, { topic: opts.topic, group: opts.group });
    subscription.start();
    return subscription;
  }

  async ping(): Promise<void> {
    await withTimeout(this.redis.ping(), this.config.pingTimeoutMs ?? 2000, "redis ping");
  }

  async lag(): Promise<ConsumerLag[]> {
    const seen = new Map<string, { topic: string; group: string }>();
    for (const s of this.subscribed.values()) seen.set(`${s.topic}\u0000${s.group}`, s);
    return Promise.all(
      [...seen.values()].map(async ({ topic, group }) => {
        const stream = topicName(this.config.prefix, topic);
        const groups = (await this.redis.call("XINFO", "GROUPS", stream)) as unknown[][];
        return { topic, group, messages: groupLag(groups, group) };
      }),
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** XADDs the batch in one MULTI so that a retried publish never leaves half a batch behind. */
  private async append<T>(topic: string, messages: OutgoingMessage<T>[], trace: Record<string, string>) {
    if (messages.length === 0) return;
    const stream = topicName(this.config.prefix, topic);
    const tx = this.redis.multi();
    for (const m of messages) {
      const headers = JSON.stringify({ ...m.headers, ...trace });
      tx.xadd(stream, "*", "k", m.key, "v", encodeValue(m.value), "h", headers);
    }
    const results = await tx.exec();
    if (!results) throw new Error("bus: redis transaction aborted");
    for (const [error] of results) if (error) throw error;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("bus: closed");
  }
}

/**
 * A group's `lag` (entries not yet delivered to it) plus its `pending` ones (delivered, not acknowledged).
 * Redis reports a null lag when it cannot tell (entries deleted past the group's position); then only
 * the pending ones count.
 */
function groupLag(groups: unknown[][], group: string): number {
  for (const fields of groups) {
    const info = new Map<string, unknown>();
    for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
    if (info.get("name") !== group) continue;
    const lag = info.get("lag");
    const pending = Number(info.get("pending") ?? 0);
    return (lag === null || lag === undefined ? 0 : Number(lag)) + pending;
  }
  return 0;
}
