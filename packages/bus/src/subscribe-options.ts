import { getHeapStatistics } from "node:v8";
import type { SubscribeOptions } from "./types.ts";

/** The least a consumer reads ahead, whatever the heap: kafkajs's own bound of one partition. */
export const FETCH_BYTES_MIN = 1_048_576;
/** The most: kafkajs's own bound of one fetch; fetching more at once drains no faster. */
export const FETCH_BYTES_MAX = 10_485_760;
/**
 * The share of V8's heap limit one subscription may read ahead. Kafka's fetched bytes are buffers
 * beside the heap, but kafkajs decodes a whole fetch into message objects on it, and each handler
 * call's values are parsed there; Redis Streams' entries are strings on the heap. A sixteenth leaves
 * the handler's own batches (the click consumer's take a quarter) and the process at rest their
 * room: 5.3 MB of analytics' 85 MB at KURZ_MEMORY_MB=1024, more than a click run's fetch needs.
 */
const FETCH_HEAP_SHARE = 1 / 16;

/** `maxFetchBytes` for a heap of `heapLimit` bytes (V8's limit, old and young generations). */
export function defaultMaxFetchBytes(heapLimit = getHeapStatistics().heap_size_limit): number {
  return Math.min(FETCH_BYTES_MAX, Math.max(FETCH_BYTES_MIN, Math.floor(heapLimit * FETCH_HEAP_SHARE)));
}

export type ResolvedSubscribeOptions<T> = Required<Omit<SubscribeOptions<T>, "consumerName" | "runs">> & {
  consumerName: string | undefined;
  runs: SubscribeOptions<T>["runs"];
};

export function resolveSubscribeOptions<T>(opts: SubscribeOptions<T>): ResolvedSubscribeOptions<T> {
  const resolved: ResolvedSubscribeOptions<T> = {
    topic: opts.topic,
    group: opts.group,
    handler: opts.handler,
    maxBatchSize: opts.maxBatchSize ?? 500,
    maxWaitMs: opts.maxWaitMs ?? 100,
    maxAttempts: opts.maxAttempts ?? 5,
    deadLetterTopic: opts.deadLetterTopic ?? `${opts.topic}.dlq`,
    retryBackoffMs: opts.retryBackoffMs ?? { initial: 100, max: 5000 },
    consumerName: opts.consumerName,
    startFrom: opts.startFrom ?? "earliest",
    drainTimeoutMs: opts.drainTimeoutMs ?? 30_000,
    runs: opts.runs,
    maxFetchBytes: opts.maxFetchBytes ?? defaultMaxFetchBytes(),
  };
  if (!resolved.topic || !resolved.group) throw new Error("bus: subscribe needs a topic and a group");
  if (resolved.deadLetterTopic === resolved.topic)
    throw new Error("bus: deadLetterTopic must differ from topic");
  for (const [name, v] of [
    ["maxBatchSize", resolved.maxBatchSize],
    ["maxAttempts", resolved.maxAttempts],
    ["maxFetchBytes", resolved.maxFetchBytes],
    ...(resolved.runs
      ? ([
          ["runs.maxMessages", resolved.runs.maxMessages],
          ["runs.maxBytes", resolved.runs.maxBytes],
        ] as const)
      : []),
  ] as const) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`bus: ${name} must be a positive integer`);
  }
  return resolved;
}
