import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka } from "kafkajs";
import { backoffDelay, sleep } from "../backoff.ts";
import { deliverBatch } from "../deliver-batch.ts";
import { errorInfo } from "../logger.ts";
import { StopControl } from "../stop-control.ts";
import type { ResolvedSubscribeOptions } from "../subscribe-options.ts";
import type { BusLogger, IncomingMessage, Subscription } from "../types.ts";
import { withTimeout } from "../with-timeout.ts";
import { toDelivery } from "./kafka-messages.ts";

export interface KafkaSubscriptionDeps {
  kafka: Kafka;
  /** Physical (prefixed) topic name. */
  topic: string;
  consumerConfig: ConsumerConfig & {
    heartbeatInterval: number;
    sessionTimeout: number;
    rebalanceTimeout: number;
  };
  logger: BusLogger;
  deadLetter: (message: IncomingMessage, why: { error: string; attempts: number }) => Promise<void>;
  onStopped: () => void;
}

/**
 * A kafkajs consumer run with eachBatch, manual offset commits after each handled chunk, and a
 * restart when kafkajs gives up on the consumer (CRASH with restart=false).
 */
export class KafkaSubscription<T> implements Subscription {
  private readonly control: StopControl;
  private consumer: Consumer | undefined;
  private restarting: Promise<void> | undefined;
  private restartFailures = 0;
  private stopped: Promise<void> | undefined;
  private readonly log: object;

  constructor(
    private readonly opts: ResolvedSubscribeOptions<T>,
    private readonly deps: KafkaSubscriptionDeps,
  ) {
    this.control = new StopControl(opts.drainTimeoutMs);
    this.log = { topic: opts.topic, group: opts.group };
  }

  /** Resolves once the consumer has joined its group, or after a bounded wait (logged). */
  async start(): Promise<void> {
    const { joined } = await this.startConsumer();
    const { sessionTimeout, rebalanceTimeout } = this.deps.consumerConfig;
    await withTimeout(joined, sessionTimeout + rebalanceTimeout + 5000, "kafka group join").catch((e) =>
      this.deps.logger.warn({ ...this.log, ...errorInfo(e) }, "bus: consumer has not joined its group yet"),
    );
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.control.requestStop();
      await this.restarting;
      // Waits for the running eachBatch, which returns after its chunk or once it is abandoned.
      await this.consumer?.disconnect().catch((e) => {
        this.deps.logger.warn({ ...this.log, ...errorInfo(e) }, "bus: kafka consumer disconnect failed");
      });
      this.control.dispose();
      this.deps.onStopped();
    })();
    return this.stopped;
  }

  /** Returns once the consumer runs; `joined` settles when it first joins its group. */
  private async startConsumer(): Promise<{ joined: Promise<void> }> {
    const consumer = this.deps.kafka.consumer(this.deps.consumerConfig);
    this.consumer = consumer;
    let onJoin: () => void = () => {};
    const joined = new Promise<void>((resolve) => {
      onJoin = resolve;
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.restartFailures = 0;
      onJoin();
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      // With restart=true kafkajs restarts the consumer itself.
      if (payload.restart || this.consumer !== consumer || this.control.stopping.aborted) return;
      this.deps.logger.error(
        { ...this.log, ...errorInfo(payload.error) },
        "bus: kafka consumer crashed, restarting",
      );
      this.restarting = this.restart(consumer);
    });
    try {
      await consumer.connect();
      await consumer.subscribe({
        topics: [this.deps.topic],
        fromBeginning: this.opts.startFrom === "earliest",
      });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: 1,
        eachBatch: (payload) => this.eachBatch(payload),
      });
    } catch (e) {
      await consumer.disconnect().catch(() => {});
      throw e;
    }
    return { joined };
  }

  private async restart(crashed: Consumer): Promise<void> {
    await crashed.disconnect().catch(() => {});
    while (!this.control.stopping.aborted) {
      this.restartFailures++;
      await sleep(backoffDelay(this.restartFailures, { initial: 500, max: 30_000 }), this.control.stopping);
      if (this.control.stopping.aborted) return;
      try {
        await this.startConsumer();
        return;
      } catch (e) {
        this.deps.logger.error({ ...this.log, ...errorInfo(e) }, "bus: kafka consumer restart failed");
      }
    }
  }

  private async eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    const { partition } = batch;
    const size = this.opts.maxBatchSize;
    for (let start = 0; start < batch.messages.length; start += size) {
      if (this.control.stopping.aborted || !isRunning() || isStale()) return;
      const chunk = batch.messages.slice(start, start + size);
      // Long handler runs and retries must not cost us the partition.
      const beat = setInterval(() => {
        heartbeat().catch(() => {});
      }, this.deps.consumerConfig.heartbeatInterval);
      let completed: Set<string>;
      let finished: boolean;
      try {
        const result = await deliverBatch(
          chunk.map((m) => toDelivery<T>(this.opts.topic, partition, m)),
          {
            handler: this.opts.handler,
            maxAttempts: this.opts.maxAttempts,
            backoff: this.opts.retryBackoffMs,
            stopping: this.control.stopping,
            abandoned: this.control.abandoned,
            deadLetter: this.deps.deadLetter,
            logger: this.deps.logger,
            logContext: { ...this.log, partition },
          },
        );
        completed = new Set(result.completed.map((m) => m.id));
        finished = result.finished;
      } finally {
        clearInterval(beat);
      }
      // A partition commits a position, not a set: only the handled prefix can be committed.
      let done = 0;
      while (done < chunk.length && completed.has(`${partition}:${chunk[done]!.offset}`)) done++;
      if (done > 0) {
        const last = chunk[done - 1]!;
        resolveOffset(last.offset);
        await commitOffsetsIfNecessary({
          topics: [
            {
              topic: batch.topic,
              partitions: [{ partition, offset: (BigInt(last.offset) + 1n).toString() }],
            },
          ],
        });
      }
      if (!finished || done < chunk.length) return;
    }
  }
}
