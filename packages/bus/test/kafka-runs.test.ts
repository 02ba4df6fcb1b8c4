// Runs (decision 0049): every consumer of a partition must cut the same runs, whatever its fetches and
// batch sizes, and an unfinished run must neither be handed out early nor lost when its consumer stops.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createBus,
  type EventBus,
  type IncomingMessage,
  type Subscription,
  topicName,
} from "../src/index.ts";
import { chunkRuns, cutRuns, type RunInput } from "../src/kafka/kafka-runs.ts";
import { type KafkaMock, startKafkaMock } from "../src/testing/index.ts";
import { testLogger, waitFor } from "./helpers.ts";

const msg = (offset: number, bytes = 10, marker = false): RunInput => ({
  offset: String(offset),
  bytes,
  marker,
});

describe("cutRuns", () => {
  it("ends runs at aligned offsets, at the byte limit and at markers, and holds the unfinished tail", () => {
    const log = [
      msg(0),
      msg(1),
      msg(2),
      msg(3, 10, true),
      msg(4, 50),
      msg(5),
      msg(6),
      msg(7),
      msg(8),
      msg(9),
    ];
    const { runs, held } = cutRuns(log, { maxMessages: 4, maxBytes: 60 });
    expect(runs.map((r) => r.id)).toEqual(["0-3", "4-5", "6-7"]);
    expect(held).toBe(8);
  });

  it("holds everything when no run has ended", () => {
    expect(cutRuns([msg(5), msg(6)], { maxMessages: 100, maxBytes: 1000 })).toEqual({ runs: [], held: 0 });
  });

  it("cuts the same runs whether the log comes in one piece or in fetches of any size", () => {
    const opts = { maxMessages: 7, maxBytes: 120 };
    // A deterministic pseudo-random log: sizes 1-60 bytes, a marker now and then.
    let seed = 42;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const log = Array.from({ length: 500 }, (_, i) => msg(i, 1 + Math.floor(rand() * 60), rand() < 0.05));
    const whole = cutRuns(log, opts).runs.map((r) => r.id);
    for (let trial = 0; trial < 20; trial++) {
      const ids: string[] = [];
      let carried: RunInput[] = [];
      for (let at = 0; at < log.length; ) {
        const fetched = log.slice(at, at + 1 + Math.floor(rand() * 40));
        at += fetched.length;
        const input = [...carried, ...fetched];
        const { runs, held } = cutRuns(input, opts);
        ids.push(...runs.map((r) => r.id));
        carried = input.slice(held);
      }
      expect(ids).toEqual(whole.slice(0, ids.length));
      // What is still carried is exactly the log's unfinished tail.
      expect(ids).toEqual(whole);
    }
  });
});

describe("subscriptions with runs (Kafka mock)", () => {
  const prefix = `bus-runs-${randomUUID().slice(0, 8)}`;
  const topic = "runs";
  let mock: KafkaMock;
  let publisher: EventBus;
  const buses: EventBus[] = [];
  const bus = () => {
    const b = createBus({
      kind: "kafka",
      clientId: "bus-runs",
      prefix,
      kafkaBrokers: mock.brokers,
      kafka: { sessionTimeout: 3000, rebalanceTimeout: 3000, heartbeatInterval: 300 },
      logger: testLogger(),
    });
    buses.push(b);
    return b;
  };

  beforeAll(async () => {
    mock = await startKafkaMock({ topics: [`${topicName(prefix, topic)}:1`] });
    publisher = bus();
  }, 60_000);

  afterAll(async () => {
    for (const b of buses) await b.close();
    await mock?.stop();
  });

  const publish = async (from: number, n: number) => {
    // One send per message: record batches of one, so fetches end at arbitrary offsets.
    for (let i = from; i < from + n; i++) await publisher.publish(topic, [{ key: "k", value: { i } }]);
  };

  /** Message number → the run it was handed out in; fails on any message handed out twice. */
  const consume = async (group: string, maxBatchSize: number, seen: Map<number, string>) =>
    bus().subscribe<{ i: number }>({
      topic,
      group,
      maxBatchSize,
      maxWaitMs: 20,
      runs: { maxMessages: 10, maxBytes: 1_000_000 },
      handler: async (batch: IncomingMessage<{ i: number }>[]) => {
        const runs = new Set(batch.map((m) => m.run));
        // A handler call holds whole runs: each run's messages are all there.
        for (const run of runs) {
          const [first, last] = run!.split(":")[1]!.split("-").map(Number);
          const offsets = batch.filter((m) => m.run === run).map((m) => Number(m.id.split(":")[1]));
          expect(offsets[0]).toBe(first);
          // The run's last offset is its last message or a cut marker after it.
          expect(offsets.at(-1)! === last || offsets.at(-1)! === last! - 1).toBe(true);
        }
        for (const m of batch) {
          expect(seen.has(m.value.i), `message ${m.value.i} handed out twice`).toBe(false);
          seen.set(m.value.i, m.run!);
        }
      },
    });

  const until = (cond: () => boolean, what: string) => waitFor(what, cond, 30_000);

  it("gives two groups with different batch sizes the same runs, ends a quiet run, and loses nothing on a restart", {
    timeout: 90_000,
  }, async () => {
    const a = new Map<number, string>();
    const b = new Map<number, string>();
    const subA: Subscription = await consume("a", 3, a);
    // A quiet partition: 4 messages and nothing more; the consumer appends a marker to end the run.
    await publish(0, 4);
    await until(() => a.size === 4, "the quiet run");
    await publish(4, 23);
    await until(() => a.size === 27, "group a");
    // Stopped while a run may be unfinished, then restarted in the same group: the run is read again
    // from its first offset (its messages were never committed), so each is handed out once.
    await subA.stop();
    const a2 = new Map<number, string>();
    // Group b joins beside group a's rejoin (each join waits on the mock's group timer): it then
    // reads the 27 messages already there at once and the rest as they come, unlike group a.
    const [subA2, subB] = await Promise.all([consume("a", 3, a2), consume("b", 7, b)]);
    await publish(27, 15);
    await until(() => b.size === 42, "group b");
    await until(() => a.size + a2.size === 42, "group a after its restart");
    for (const i of a2.keys())
      expect(a.has(i), `message ${i} handed out before and after the restart`).toBe(false);
    // Group a's runs, before and after its restart, are group b's.
    for (const [i, run] of [...a, ...a2]) expect(run, `message ${i}`).toBe(b.get(i));
    await subA2.stop();
    await subB.stop();
  });
});

describe("chunkRuns", () => {
  const run = (first: number, last: number) => ({ first, last, id: `${first}-${last}` });
  it("fills handler calls with whole runs up to the batch size; a longer run is a call of its own", () => {
    const runs = [run(0, 2), run(3, 4), run(5, 11), run(12, 12)];
    const chunks = chunkRuns(runs, 5);
    expect(chunks.map(({ from, to }) => [from, to])).toEqual([
      [0, 5],
      [5, 12],
      [12, 13],
    ]);
    expect([0, 1, 2, 3, 4].map(chunks[0]!.runOf)).toEqual(["0-2", "0-2", "0-2", "3-4", "3-4"]);
    expect(chunks[1]!.runOf(6)).toBe("5-11");
    expect(chunkRuns([], 5)).toEqual([]);
  });
});
