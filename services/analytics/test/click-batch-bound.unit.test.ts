// The click consumer's batch size from V8's heap limit (old generation + three 8 MB semi-spaces, as
// analytics starts): the minimum budget's 61 MB old generation, the default's 92, and the extremes.
import { expect, it } from "vitest";
import { CLICK_BATCH_MESSAGES_MAX, clickBatchMessages } from "../src/ingest/click-batch-bound.ts";

const heap = (oldSpaceMb: number) => (oldSpaceMb + 24) * 2 ** 20;

it("takes fewer messages a batch as the heap gets smaller, 100 at most and 1 at least", () => {
  expect(clickBatchMessages(heap(61))).toBe(74);
  expect(clickBatchMessages(heap(92))).toBe(CLICK_BATCH_MESSAGES_MAX);
  expect(clickBatchMessages(heap(4_000))).toBe(CLICK_BATCH_MESSAGES_MAX);
  expect(clickBatchMessages(1 * 2 ** 20)).toBe(1);
});
