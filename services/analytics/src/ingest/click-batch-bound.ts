// How many bus messages one handler call of the click consumer takes, from the V8 heap the process
// may use: a batch's clicks are all in the heap at once (the messages as the bus decoded them, one
// row per click, the look-ups' sets), so a batch sized for a large heap would exhaust a small one.
// A backlog then drains in more, smaller batches; the bus keeps the rest waiting.
import { getHeapStatistics } from "node:v8";
import { CLICK_BATCH_MAX } from "@kurz/contracts";

/** The most messages a batch takes, whatever the heap: each insert holds up to 20,000 clicks. */
export const CLICK_BATCH_MESSAGES_MAX = 100;

/**
 * V8 heap one click of a batch holds while the batch is handled, with room: ~520 bytes for its
 * message as the bus decoded it, ~350 for its row, ~110 for the event between the two, and the
 * batch's sets and sorted copies (docs/benchmarks/2026-12.md, "analytics draining a backlog").
 */
export const HEAP_BYTES_PER_CLICK = 1_500;

/**
 * The share of the heap limit one batch may fill: the rest holds the service at rest (~25–30 MB), the
 * API's reads, and the garbage of earlier batches until a collection frees it.
 */
const BATCH_HEAP_SHARE = 0.25;

/**
 * Messages per handler call for a heap of `heapLimit` bytes (V8's limit, old and young generations),
 * counting every message as full: 100 at the default budget's 116 MB, 74 at the minimum's 85 MB.
 */
export function clickBatchMessages(heapLimit = getHeapStatistics().heap_size_limit): number {
  const fit = Math.floor((heapLimit * BATCH_HEAP_SHARE) / (CLICK_BATCH_MAX * HEAP_BYTES_PER_CLICK));
  return Math.max(1, Math.min(CLICK_BATCH_MESSAGES_MAX, fit));
}
