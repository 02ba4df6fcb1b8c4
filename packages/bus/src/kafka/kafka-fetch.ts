// What a kafkajs consumer may fetch at once. kafkajs runs one fetch per broker at a time and fetches
// again only once the handler has had the last fetch's messages, so a subscription holds at most one
// fetch's bytes per broker it reads from, beside the unfinished run it carries (runs only).
import type { RunOptions } from "./kafka-runs.ts";

/** kafkajs's bound of one partition in a fetch; a fetch takes several partitions when it may. */
const PARTITION_BYTES = 1_048_576;
/**
 * A partition's bytes in a fetch, as a multiple of a run's `maxBytes`: a run ends at the message that
 * reaches `maxBytes`, so it may pass it by one message and the records' own framing.
 */
export const RUN_FETCH_FACTOR = 4;

export interface FetchLimits {
  /** The whole fetch (kafkajs `maxBytes`). */
  maxBytes: number;
  /** Each partition's part of it (kafkajs `maxBytesPerPartition`). */
  maxBytesPerPartition: number;
}

/**
 * kafkajs's fetch limits for a subscription that may read `maxFetchBytes` ahead: a partition takes
 * up to 1 MiB of the fetch, so that a fetch serves several. With runs, a partition's part holds four
 * runs' bytes whatever the bound, and the fetch at least that part: a run must fit in one fetch, or
 * its end would never be fetched with its start.
 */
export function kafkaFetchLimits(maxFetchBytes: number, runs: RunOptions | undefined): FetchLimits {
  const part = Math.min(PARTITION_BYTES, maxFetchBytes);
  const maxBytesPerPartition = runs ? Math.max(part, RUN_FETCH_FACTOR * runs.maxBytes) : part;
  return { maxBytes: Math.max(maxFetchBytes, maxBytesPerPartition), maxBytesPerPartition };
}
