import { describe, expect, it } from "vitest";
import {
  type CrashLedger,
  type Delivery,
  type DeliveryPolicy,
  deliverBatch,
  SOLO_CRASHES_TO_DEAD_LETTER,
} from "../src/deliver-batch.ts";
import type { IncomingMessage } from "../src/index.ts";
import { testLogger } from "./helpers.ts";

// The retry policy in isolation; the conformance suite checks it again through both brokers.

const batchOf = (n: number, deliveryAttempt = 1): Delivery<number>[] =>
  Array.from({ length: n }, (_, i) => ({
    message: { topic: "t", key: "k", value: i, headers: {}, id: String(i), deliveryAttempt },
  }));

function policy(
  handler: DeliveryPolicy<number>["handler"],
  overrides: Partial<DeliveryPolicy<number>> = {},
): DeliveryPolicy<number> & {
  dead: { message: IncomingMessage<number>; attempts: number; error: string }[];
} {
  const dead: { message: IncomingMessage<number>; attempts: number; error: string }[] = [];
  return {
    handler,
    maxAttempts: 3,
    backoff: { initial: 1, max: 2 },
    stopping: new AbortController().signal,
    abandoned: new AbortController().signal,
    deadLetter: async (message, why) => void dead.push({ message, ...why }),
    logger: testLogger(),
    logContext: {},
    dead,
    ...overrides,
  };
}

describe("deliverBatch", () => {
  it("finds the failing message by retrying one by one and never exceeds maxAttempts per message", async () => {
    const calls: { values: number[]; attempts: number[] }[] = [];
    const p = policy(async (batch) => {
      calls.push({ values: batch.map((m) => m.value), attempts: batch.map((m) => m.deliveryAttempt) });
      if (batch.some((m) => m.value === 2)) throw new Error("bad 2");
    });
    const result = await deliverBatch(batchOf(4), p);

    expect(result.finished).toBe(true);
    expect(result.completed.map((m) => m.value)).toEqual([0, 1, 2, 3]);
    expect(p.dead).toEqual([{ message: expect.objectContaining({ value: 2 }), attempts: 3, error: "bad 2" }]);
    // Two batch attempts, then each message alone; the culprit gets its third and last attempt.
    expect(calls).toEqual([
      { values: [0, 1, 2, 3], attempts: [1, 1, 1, 1] },
      { values: [0, 1, 2, 3], attempts: [2, 2, 2, 2] },
      { values: [0], attempts: [3] },
      { values: [1], attempts: [3] },
      { values: [2], attempts: [3] },
      { values: [3], attempts: [3] },
    ]);
  });

  it("dead-letters without a handler call what was redelivered past maxAttempts", async () => {
    const seen: number[] = [];
    const p = policy(async (batch) => void seen.push(...batch.map((m) => m.value)));
    const result = await deliverBatch([...batchOf(1, 4), ...batchOf(2, 1).slice(1)], p);
    expect(result.finished).toBe(true);
    expect(seen).toEqual([1]);
    expect(p.dead.map((d) => [d.message.value, d.attempts])).toEqual([[0, 3]]);
  });

  it("with a crash ledger, handles a message redelivered past maxAttempts alone and first, and clears its mark", async () => {
    const calls: number[][] = [];
    const ledger = memoryLedger();
    const p = policy(async (batch) => void calls.push(batch.map((m) => m.value)), { crashes: ledger });
    // Entry 0 sat in batches whose consumers died; 1 and 2 are fresh.
    const result = await deliverBatch([...batchOf(1, 4), ...batchOf(3).slice(1)], p);
    expect(result.finished).toBe(true);
    expect(calls).toEqual([[0], [1, 2]]);
    expect(p.dead).toEqual([]);
    expect(ledger.marks).toEqual(["0"]);
    expect(ledger.counts.size).toBe(0);
  });

  it("with a crash ledger, dead-letters without a call a message whose consumers died handling it alone", async () => {
    const ledger = memoryLedger();
    for (let i = 0; i < SOLO_CRASHES_TO_DEAD_LETTER; i++) await ledger.mark("0");
    const seen: number[] = [];
    const p = policy(async (batch) => void seen.push(...batch.map((m) => m.value)), { crashes: ledger });
    const result = await deliverBatch(batchOf(1, 6), p);
    expect(result.finished).toBe(true);
    expect(seen).toEqual([]);
    expect(p.dead.map((d) => [d.message.value, d.attempts])).toEqual([[0, 5]]);
    expect(p.dead[0]!.error).toMatch(/after a consumer died handling it alone/);
    expect(ledger.counts.size).toBe(0);
  });

  it("with a crash ledger, dead-letters a message past maxAttempts whose one call fails, and leaves its mark when abandoned", async () => {
    const failing = policy(
      async () => {
        throw new Error("bad");
      },
      { crashes: memoryLedger() },
    );
    expect((await deliverBatch(batchOf(1, 4), failing)).finished).toBe(true);
    expect(failing.dead.map((d) => [d.error, d.attempts])).toEqual([["bad", 4]]);

    const abandon = new AbortController();
    const ledger = memoryLedger();
    const hung = policy(() => new Promise<void>(() => setTimeout(() => abandon.abort(), 10)), {
      abandoned: abandon.signal,
      crashes: ledger,
    });
    expect(await deliverBatch(batchOf(1, 4), hung)).toEqual({ completed: [], finished: false });
    // Given up on as after a crash: the next consumer counts it.
    expect(await ledger.count("0")).toBe(1);
  });

  it("stops retrying when stopping, leaving the batch uncompleted", async () => {
    const stop = new AbortController();
    const p = policy(
      async () => {
        stop.abort();
        throw new Error("down");
      },
      { stopping: stop.signal, backoff: { initial: 60_000, max: 60_000 } },
    );
    const result = await deliverBatch(batchOf(3), p);
    expect(result).toEqual({ completed: [], finished: false });
    expect(p.dead).toEqual([]);
  });

  it("gives up on a handler call that outlives the drain timeout", async () => {
    const abandon = new AbortController();
    const p = policy(() => new Promise<void>(() => setTimeout(() => abandon.abort(), 10)), {
      abandoned: abandon.signal,
    });
    const result = await deliverBatch(batchOf(2), p);
    expect(result).toEqual({ completed: [], finished: false });
  });

  it("keeps retrying the dead-letter topic until it accepts the message", async () => {
    let dlqFailures = 0;
    const p = policy(async () => {
      throw new Error("poison");
    });
    const accepted: number[] = [];
    p.deadLetter = async (message) => {
      if (dlqFailures++ < 2) throw new Error("dlq down");
      accepted.push(message.value);
    };
    const result = await deliverBatch(batchOf(1), p);
    expect(result.finished).toBe(true);
    expect(accepted).toEqual([0]);
  });
});

/** A crash ledger in memory, recording the ids marked. */
function memoryLedger(): CrashLedger & { counts: Map<string, number>; marks: string[] } {
  const counts = new Map<string, number>();
  const marks: string[] = [];
  return {
    counts,
    marks,
    count: async (id) => counts.get(id) ?? 0,
    mark: async (id) => {
      marks.push(id);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    },
    clear: async (id) => void counts.delete(id),
  };
}
