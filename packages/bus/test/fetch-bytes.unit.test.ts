import { describe, expect, it } from "vitest";
import { kafkaFetchLimits, RUN_FETCH_FACTOR } from "../src/kafka/kafka-fetch.ts";
import {
  defaultMaxFetchBytes,
  FETCH_BYTES_MAX,
  FETCH_BYTES_MIN,
  resolveSubscribeOptions,
} from "../src/subscribe-options.ts";

// What a consumer reads ahead of its handler, from the heap the memory budget gives its process.

const MiB = 2 ** 20;

describe("defaultMaxFetchBytes", () => {
  it("is a sixteenth of V8's heap limit, within kafkajs's bounds of a partition and of a fetch", () => {
    // Analytics' heap limit at KURZ_MEMORY_MB=1024: 61 MB of old generation and 24 of young.
    expect(defaultMaxFetchBytes(85 * MiB)).toBe(Math.floor((85 * MiB) / 16));
    expect(defaultMaxFetchBytes(8 * MiB)).toBe(FETCH_BYTES_MIN);
    expect(defaultMaxFetchBytes(4096 * MiB)).toBe(FETCH_BYTES_MAX);
  });

  it("is what a subscription reads ahead unless it says otherwise", () => {
    const base = { topic: "t", group: "g", handler: async () => {} };
    expect(resolveSubscribeOptions(base).maxFetchBytes).toBe(defaultMaxFetchBytes());
    expect(resolveSubscribeOptions({ ...base, maxFetchBytes: 12_345 }).maxFetchBytes).toBe(12_345);
    expect(() => resolveSubscribeOptions({ ...base, maxFetchBytes: 0 })).toThrow(/maxFetchBytes/);
  });
});

describe("kafkaFetchLimits", () => {
  it("bounds the fetch by maxFetchBytes, each partition by 1 MiB of it", () => {
    expect(kafkaFetchLimits(5 * MiB, undefined)).toEqual({ maxBytes: 5 * MiB, maxBytesPerPartition: MiB });
    expect(kafkaFetchLimits(MiB / 2, undefined)).toEqual({
      maxBytes: MiB / 2,
      maxBytesPerPartition: MiB / 2,
    });
  });

  it("keeps a partition's part at four runs' bytes, and the fetch at least that, whatever the bound", () => {
    const runs = { maxMessages: 100, maxBytes: MiB };
    expect(kafkaFetchLimits(defaultMaxFetchBytes(85 * MiB), runs)).toEqual({
      maxBytes: defaultMaxFetchBytes(85 * MiB),
      maxBytesPerPartition: RUN_FETCH_FACTOR * MiB,
    });
    // A heap too small for a run's fetch: the run still fits in one.
    expect(kafkaFetchLimits(FETCH_BYTES_MIN, runs)).toEqual({
      maxBytes: RUN_FETCH_FACTOR * MiB,
      maxBytesPerPartition: RUN_FETCH_FACTOR * MiB,
    });
    // Small runs: a partition still takes up to 1 MiB of the fetch.
    expect(kafkaFetchLimits(5 * MiB, { maxMessages: 10, maxBytes: 1000 }).maxBytesPerPartition).toBe(MiB);
  });
});
