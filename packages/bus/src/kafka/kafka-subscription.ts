import type { Consumer, ConsumerConfig, EachBatchPayload, Kafka, KafkaMessage } from "kafkajs";
import { backoffDelay, sleep } from "../backoff.ts";
import { deliverBatch } from "../deliver-batch.ts";
import { errorInfo } from "../logger.ts";
import { StopControl } from "../stop-control.ts";
import type { ResolvedSubscribeOptions } from "../subscribe-options.ts";
import type { BusLogger, IncomingMessage, Subscription } from "../types.ts";
import { withTimeout } from "../with-timeout.ts";
import { toDelivery } from "./kafka-messages.ts";
import { CUT_MARKER_HEADER, chunkRuns, cutRuns } from "./kafka-runs.ts";

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
  /** Appends a cut marker to the partition and resolves once the brokers have it (`runs` only). */
  sendCutMarker: (partition: number) => Promise<void>;
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
  /** Per partition: the fetched messages of its unfinished run (`runs` only). */
  private readonly carried = new Map<number, KafkaMessage[]>();

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
    let messages = batch.messages;
    const runs = this.opts.runs;
    // The unfinished run of the previous fetch, resolved (so kafkajs fetches on) but not committed:
    // continued when this fetch follows it; dropped when the fetch starts again at or before it (a
    // rebalance or restart resumes at the committed offset, the run's first).
    const carried = this.carried.get(partition);
    this.carried.delete(partition);
    if (carried && messages.length > 0 && BigInt(messages[0]!.offset) > BigInt(carried.at(-1)!.offset)) {
      messages = [...carried, ...messages];
    }
    const isMarker = (m: KafkaMessage) => m.headers?.[CUT_MARKER_HEADER] !== undefined;
    // Without runs, every maxBatchSize messages are a chunk; with runs, chunks hold whole runs.
    let chunks: { messages: KafkaMessage[]; runOf: (i: number) => string | undefined }[];
    let held = messages.length;
    if (runs) {
      const cut = cutRuns(
        messages.map((m) => ({ offset: m.offset, bytes: m.value?.length ?? 0, marker: isMarker(m) })),
        runs,
      );
      held = cut.held;
      chunks = chunkRuns(cut.runs, this.opts.maxBatchSize).map(({ from, to, runOf }) => ({
        messages: messages.slice(from, to),
        runOf: (i: number) => `${partition}:${runOf(i)}`,
      }));
    } else {
      chunks = [];
      for (let start = 0; start < messages.length; start += this.opts.maxBatchSize)
        chunks.push({
          messages: messages.slice(start, start + this.opts.maxBatchSize),
          runOf: () => undefined,
        });
    }
    for (const { messages: chunk, runOf } of chunks) {
      if (this.control.stopping.aborted || !isRunning() || isStale()) return;
      // Long handler runs and retries must not cost us the partition.
      const beat = setInterval(() => {
        heartbeat().catch(() => {});
      }, this.deps.consumerConfig.heartbeatInterval);
      // Cut markers end runs and are committed with them, never handed to the handler.
      const markers = new Set(chunk.filter(isMarker).map((m) => `${partition}:${m.offset}`));
      let completed: Set<string>;
      let finished: boolean;
      try {
        const deliveries = chunk.flatMap((m, i) => {
          if (isMarker(m)) return [];
          const delivery = toDelivery<T>(this.opts.topic, partition, m);
          const run = runOf(i);
          if (run !== undefined) delivery.message.run = run;
          return [delivery];
        });
        const result =
          deliveries.length === 0
            ? { completed: [], finished: true }
            : await deliverBatch(deliveries, {
                handler: this.opts.handler,
                maxAttempts: this.opts.maxAttempts,
                backoff: this.opts.retryBackoffMs,
                stopping: this.control.stopping,
                abandoned: this.control.abandoned,
                deadLetter: this.deps.deadLetter,
                logger: this.deps.logger,
                logContext: { ...this.log, partition },
              });
        completed = new Set([...result.completed.map((m) => m.id), ...markers]);
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
      if (!finished || done < chunk.length) {
        // The fetch position may be past these messages (an unfinished run carried from the previous
        // fetch was resolved): move it back to the first one not handled, as seek does without
        // auto-commit, so that they are fetched again rather than skipped.
        if (runs) resolveOffset((BigInt(chunk[done]!.offset) - 1n).toString());
        return;
      }
    }
    if (held === messages.length || this.control.stopping.aborted || !isRunning() || isStale()) return;
    // An unfinished run is kept here and resolved, not committed: the next fetch continues after it
    // (a fetch may return less than a whole run: the mock broker returns one record batch). When this
    // fetch reached the end of the log, nothing may come to end the run, so append its end: once the
    // marker is acknowledged, a later fetch holds it (and any consumer of the partition sees it at the
    // same offset). Otherwise the fetch stopped at a size limit and the next one goes further.
    this.carried.set(partition, messages.slice(held));
    resolveOffset(messages.at(-1)!.offset);
    const lastOffset = BigInt(messages.at(-1)!.offset);
    if (lastOffset + 1n < BigInt(batch.highWatermark)) return;
    try {
      await this.deps.sendCutMarker(partition);
    } catch (e) {
      this.deps.logger.warn(
        { ...this.log, partition, ...errorInfo(e) },
        "bus: could not append a cut marker",
      );
      await sleep(backoffDelay(1, this.opts.retryBackoffMs), this.control.stopping);
    }
  }
}
