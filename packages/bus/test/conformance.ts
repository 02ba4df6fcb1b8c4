import { randomBytes } from "node:crypto";
import { context, propagation, TraceFlags, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BusConfig,
  contextOf,
  createBus,
  DEAD_LETTER_HEADERS,
  type EventBus,
  type IncomingMessage,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
} from "../src/index.ts";
import { pause, testLogger, waitFor } from "./helpers.ts";

/**
 * Logical topic names the suite uses, one per test so that tests never see each other's messages.
 * Brokers that cannot create topics on demand (the Kafka mock) create these up front.
 */
export const conformanceTopics = [
  "roundtrip",
  "split",
  "fanout",
  "order",
  "order-shared",
  "order-all",
  "crash",
  "retry",
  "poison",
  "poison.dlq",
  "resume",
  "trace",
  "lag",
] as const;

export interface ConformanceOptions {
  /** Kafka keeps per-key order across the consumers of a group (key → partition); Redis Streams do not. */
  perKeyOrderAcrossConsumers: boolean | string;
  /**
   * Redis Streams keep publish order whatever the keys (a topic is one stream), which is what
   * `partitionsByKey: false` promises publishers; Kafka orders only within a partition.
   */
  publishOrderAcrossKeys: boolean | string;
  /** The broker counts redeliveries (Redis PEL delivery counter); Kafka has no such counter. */
  countsRedeliveries: boolean;
  /** A bus pointing at an address where no broker listens. */
  makeUnreachableBus?: () => EventBus;
}

/**
 * The suite against the Kafka broker at `brokers()` (known once the file's setup has run), every bus
 * with the client settings `kafka`, topics under `prefix`.
 */
export function runKafkaConformance(
  name: string,
  opts: { prefix: string; brokers: () => string[]; kafka: BusConfig["kafka"] },
): void {
  const kafkaBus = (kafkaBrokers: string[], prefix?: string) =>
    createBus({
      kind: "kafka",
      clientId: "bus-test",
      prefix,
      kafkaBrokers,
      kafka: opts.kafka,
      logger: testLogger(),
    });
  runConformance(name, () => kafkaBus(opts.brokers(), opts.prefix), {
    perKeyOrderAcrossConsumers: true,
    publishOrderAcrossKeys: "Kafka orders messages only within a partition",
    countsRedeliveries: false,
    makeUnreachableBus: () => kafkaBus(["127.0.0.1:1"]),
  });
}

/**
 * That nothing more arrives has no event to wait on: a short quiet time in which a copy delivered with
 * the messages awaited would show.
 */
const quiet = () => pause(300);

interface Seq {
  seq: number;
  poison?: boolean;
}

/**
 * The behaviour every EventBus adapter must have. `makeBus` returns a new, independent bus (think:
 * a new process) that shares the broker and topic namespace of the test file.
 */ export function runConformance(name: string, makeBus: () => EventBus, options: ConformanceOptions): void {
  // The cases run at once, each on topics and groups of its own: a case mostly waits on the broker
  // (a group join alone takes seconds on the Kafka mock).
  describe.concurrent(`conformance: ${name}`, () => {
    const test = caseTest(makeBus);
    deliveryCases(test);
    orderCases(test, options);
    failureCases(test, options);
    deadLetterAndRestartCases(test);
    traceCases(test, makeBus);
    pingCases(test, options);
  });
}

/** What a case gets: buses and clean-ups of its own, undone when it ends. */
interface Kit {
  /** A new bus, closed after the case. */
  bus(): EventBus;
  /** Closes a bus made otherwise after the case. */
  closeAfter(b: EventBus): void;
  /** Runs `fn` after the case, before the buses close. */
  onCleanup(fn: () => void): void;
}

/** Declares a case, skipped when `skip` is true; `fn` gets the case's Kit. */
type CaseTest = (title: string, fn: (kit: Kit) => Promise<void>, skip?: boolean) => void;

function caseTest(makeBus: () => EventBus): CaseTest {
  return (title, fn, skip = false) =>
    (skip ? it.skip : it)(title, async ({ onTestFinished }) => {
      const buses: EventBus[] = [];
      const cleanups: (() => void)[] = [];
      // The case's own hook: a global one cannot tell cases that run at once apart.
      onTestFinished(async () => {
        for (const c of cleanups.splice(0)) c();
        await Promise.all(buses.splice(0).map((b) => b.close()));
      });
      await fn({
        bus: () => {
          const b = makeBus();
          buses.push(b);
          return b;
        },
        closeAfter: (b) => void buses.push(b),
        onCleanup: (c) => void cleanups.push(c),
      });
    });
}

/** Subscribes and records every message of every successful handler call. */
async function consume(
  b: EventBus,
  opts: Omit<SubscribeOptions<Seq>, "handler"> & { handler?: SubscribeOptions<Seq>["handler"] },
): Promise<{ got: IncomingMessage<Seq>[]; sub: Subscription }> {
  const got: IncomingMessage<Seq>[] = [];
  const sub = await b.subscribe<Seq>({
    ...opts,
    handler: async (batch) => {
      await opts.handler?.(batch);
      got.push(...batch);
    },
  });
  return { got, sub };
}

const seqs = (messages: IncomingMessage<Seq>[]) => messages.map((m) => m.value.seq);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** Publishes `perKey` messages for each of `keys` keys, interleaved, over several publish calls. */
async function publishKeyed(b: EventBus, topic: string, keys: number, perKey: number) {
  const all = range(0, perKey).flatMap((seq) =>
    range(0, keys).map((k) => ({ key: `key-${k}`, value: { seq } })),
  );
  for (let i = 0; i < all.length; i += 50) await b.publish(topic, all.slice(i, i + 50));
  return all.length;
}

function expectPerKeyOrder(arrivals: IncomingMessage<Seq>[], keys: number, perKey: number) {
  for (let k = 0; k < keys; k++) {
    expect(seqs(arrivals.filter((m) => m.key === `key-${k}`)), `key-${k}`).toEqual(range(0, perKey));
  }
}

/** Delivery: what a message carries, and which consumers of which groups get it. */
function deliveryCases(test: CaseTest): void {
  test("delivers key, value and headers intact", async ({ bus }) => {
    const b = bus();
    const got: IncomingMessage[] = [];
    await b.subscribe({
      topic: "roundtrip",
      group: "roundtrip-g",
      handler: async (batch) => void got.push(...batch),
    });
    const sent: OutgoingMessage[] = [
      { key: "a", value: { n: 1, nested: { s: "x", list: [1, 2, null] } }, headers: { "x-one": "1" } },
      { key: "b", value: "plain string" },
      { key: "ключ-ü", value: 42, headers: { "x-unicode": "héllo wörld", "x-empty": "" } },
    ];
    await b.publish("roundtrip", sent);
    await waitFor("3 messages", () => got.length >= 3);
    expect(got).toHaveLength(3);
    const byKey = new Map(got.map((m) => [m.key, m]));
    for (const s of sent) {
      const m = byKey.get(s.key)!;
      expect(m).toBeDefined();
      expect(m.topic).toBe("roundtrip");
      expect(m.value).toEqual(s.value);
      expect(m.headers).toEqual(s.headers ?? {});
      expect(m.deliveryAttempt).toBe(1);
      expect(m.id).toMatch(/\S/);
    }
    expect(new Set(got.map((m) => m.id)).size).toBe(3);
  });

  test("splits the work between the consumers of one group", async ({ bus }) => {
    const [a, b] = await Promise.all([
      consume(bus(), { topic: "split", group: "workers" }),
      consume(bus(), { topic: "split", group: "workers" }),
    ]);
    const publisher = bus();
    let sent = 0;
    // Keep publishing small rounds until both consumers have had work, then drain.
    for (let round = 0; round < 40 && (a.got.length === 0 || b.got.length === 0); round++) {
      await publisher.publish(
        "split",
        range(sent, sent + 12).map((seq) => ({ key: `k${seq % 12}`, value: { seq } })),
      );
      sent += 12;
      // Rounds spaced in time while the group forms (a join takes seconds on Kafka): the loop's condition
      // is the event, both consumers having had work.
      await pause(100);
    }
    await waitFor("all messages handled", () => a.got.length + b.got.length >= sent);
    await quiet(); // no copy follows
    expect(a.got.length).toBeGreaterThan(0);
    expect(b.got.length).toBeGreaterThan(0);
    const fromA = new Set(seqs(a.got));
    expect(seqs(b.got).filter((s) => fromA.has(s))).toEqual([]);
    expect([...seqs(a.got), ...seqs(b.got)].sort((x, y) => x - y)).toEqual(range(0, sent));
  });

  test("gives every group every message", async ({ bus }) => {
    const [one, two] = await Promise.all([
      consume(bus(), { topic: "fanout", group: "one" }),
      consume(bus(), { topic: "fanout", group: "two" }),
    ]);
    await bus().publish(
      "fanout",
      range(0, 30).map((seq) => ({ key: `k${seq % 5}`, value: { seq } })),
    );
    await waitFor("both groups got 30", () => one.got.length >= 30 && two.got.length >= 30);
    await quiet(); // no copy follows
    expect(seqs(one.got).sort((x, y) => x - y)).toEqual(range(0, 30));
    expect(seqs(two.got).sort((x, y) => x - y)).toEqual(range(0, 30));
  });
}

/** Order: per key within a consumer, and what each adapter promises beyond that. */
function orderCases(test: CaseTest, options: ConformanceOptions): void {
  test("keeps per-key order within a consumer", async ({ bus }) => {
    const { got } = await consume(bus(), { topic: "order", group: "order-g", maxBatchSize: 7 });
    const total = await publishKeyed(bus(), "order", 5, 40);
    await waitFor(`${total} messages`, () => got.length >= total);
    expectPerKeyOrder(got, 5, 40);
  });

  const sharedOrder = options.perKeyOrderAcrossConsumers;
  test(
    sharedOrder === true
      ? "keeps per-key order across the consumers of one group"
      : `keeps per-key order across the consumers of one group (skipped: ${sharedOrder})`,
    async ({ bus }) => {
      const arrivals: IncomingMessage<Seq>[] = [];
      const record = async (batch: IncomingMessage<Seq>[]) => void arrivals.push(...batch);
      const [a, b] = await Promise.all([
        consume(bus(), { topic: "order-shared", group: "order-shared-g", maxBatchSize: 5, handler: record }),
        consume(bus(), { topic: "order-shared", group: "order-shared-g", maxBatchSize: 5, handler: record }),
      ]);
      const total = await publishKeyed(bus(), "order-shared", 8, 25);
      await waitFor(`${total} messages`, () => arrivals.length >= total);
      expect(a.got.length + b.got.length).toBe(total);
      expectPerKeyOrder(arrivals, 8, 25);
    },
    sharedOrder !== true,
  );

  const allOrder = options.publishOrderAcrossKeys;
  test(
    allOrder === true
      ? "keeps publish order across keys within a consumer (partitionsByKey is false)"
      : `keeps publish order across keys within a consumer (skipped: ${allOrder})`,
    async ({ bus }) => {
      const publisher = bus();
      expect(publisher.partitionsByKey).toBe(false);
      const { got } = await consume(bus(), { topic: "order-all", group: "order-all-g", maxBatchSize: 7 });
      const total = await publishKeyed(publisher, "order-all", 12, 10);
      await waitFor(`${total} messages`, () => got.length >= total);
      expect(got.map((m) => `${m.key}/${m.value.seq}`)).toEqual(
        range(0, 10).flatMap((seq) => range(0, 12).map((k) => `key-${k}/${seq}`)),
      );
    },
    allOrder !== true,
  );
}

/** Failures: a consumer that dies before acknowledging, a handler that throws for a while. */
function failureCases(test: CaseTest, options: ConformanceOptions): void {
  test("redelivers a batch whose consumer died before acknowledging it", async ({ bus, onCleanup }) => {
    const hung: IncomingMessage<Seq>[] = [];
    let release: () => void = () => {};
    const never = new Promise<void>((resolve) => {
      release = resolve;
    });
    onCleanup(() => release());
    const doomed = bus();
    const sub = await doomed.subscribe<Seq>({
      topic: "crash",
      group: "crash-g",
      // The handler never returns; stop() gives up on it after the drain timeout, like a crash.
      drainTimeoutMs: 100,
      handler: async (batch) => {
        hung.push(...batch);
        await never;
      },
    });
    await bus().publish(
      "crash",
      range(0, 10).map((seq) => ({ key: "same", value: { seq } })),
    );
    await waitFor("the doomed consumer got the batch", () => hung.length > 0);
    await sub.stop();

    const survivor = await consume(bus(), { topic: "crash", group: "crash-g" });
    await waitFor("all 10 redelivered", () => new Set(seqs(survivor.got)).size >= 10);
    expect([...new Set(seqs(survivor.got))].sort((x, y) => x - y)).toEqual(range(0, 10));
    const redelivered = survivor.got.filter((m) => seqs(hung).includes(m.value.seq));
    expect(redelivered.length).toBeGreaterThan(0);
    if (options.countsRedeliveries) {
      for (const m of redelivered) expect(m.deliveryAttempt).toBeGreaterThanOrEqual(2);
    }
  });

  test("retries a failing batch with exponential backoff until it succeeds", async ({ bus }) => {
    const failuresBySeq = new Map<number, number>();
    const calls: { at: number; attempts: number[] }[] = [];
    const { got } = await consume(bus(), {
      topic: "retry",
      group: "retry-g",
      maxAttempts: 5,
      retryBackoffMs: { initial: 50, max: 1000 },
      handler: async (batch) => {
        calls.push({ at: Date.now(), attempts: batch.map((m) => m.deliveryAttempt) });
        // Every message fails its first two deliveries.
        const fresh = batch.filter((m) => (failuresBySeq.get(m.value.seq) ?? 0) < 2);
        for (const m of fresh) failuresBySeq.set(m.value.seq, (failuresBySeq.get(m.value.seq) ?? 0) + 1);
        if (fresh.length > 0) throw new Error("transient failure");
      },
    });
    await bus().publish(
      "retry",
      range(0, 3).map((seq) => ({ key: "one-key", value: { seq } })),
    );
    await waitFor("3 messages handled", () => got.length >= 3);
    expect(seqs(got).sort()).toEqual([0, 1, 2]);
    for (const m of got) expect(m.deliveryAttempt).toBe(3);
    // Backoff grows: the second retry waits longer than the first (both ±20 % jitter).
    const firstCall = calls[0]!;
    const third = calls.find((c) => c.attempts.includes(3))!;
    expect(third.at - firstCall.at).toBeGreaterThanOrEqual((50 + 100) * 0.8 - 5);
  });
}

/** A message that never succeeds, and a consumer stopped in the middle of a batch. */
function deadLetterAndRestartCases(test: CaseTest): void {
  test("dead-letters a message that keeps failing, with the reason, and lets the rest through", async ({
    bus,
  }) => {
    const b = bus();
    const poisonAttempts: number[] = [];
    // Both groups join at once: a join takes seconds on the Kafka mock.
    const [{ got }, dead] = await Promise.all([
      consume(b, {
        topic: "poison",
        group: "poison-g",
        maxAttempts: 3,
        retryBackoffMs: { initial: 10, max: 40 },
        handler: async (batch) => {
          const bad = batch.find((m) => m.value.poison);
          if (bad) {
            poisonAttempts.push(bad.deliveryAttempt);
            throw new Error(`cannot handle seq ${bad.value.seq}`);
          }
        },
      }),
      consume(bus(), { topic: "poison.dlq", group: "dlq-readers" }),
    ]);
    await b.publish(
      "poison",
      range(0, 6).map((seq) => ({
        key: "k",
        value: seq === 2 ? { seq, poison: true } : { seq },
        headers: { "x-origin": `test-${seq}` },
      })),
    );
    await waitFor("dead letter", () => dead.got.length >= 1);
    await waitFor("good messages", () => got.length >= 5);
    expect(seqs(got).sort()).toEqual([0, 1, 3, 4, 5]);
    expect(poisonAttempts.at(-1)).toBe(3);
    expect(Math.max(...poisonAttempts)).toBe(3);

    const [dlq] = dead.got;
    expect(dlq!.key).toBe("k");
    expect(dlq!.value).toEqual({ seq: 2, poison: true });
    expect(dlq!.headers).toMatchObject({
      "x-origin": "test-2",
      [DEAD_LETTER_HEADERS.error]: "cannot handle seq 2",
      [DEAD_LETTER_HEADERS.originalTopic]: "poison",
      [DEAD_LETTER_HEADERS.attempts]: "3",
      [DEAD_LETTER_HEADERS.group]: "poison-g",
    });

    // The consumer is not stuck behind the poison message.
    await b.publish("poison", [{ key: "k", value: { seq: 6 } }]);
    await waitFor("message after the poison", () => seqs(got).includes(6));
    await quiet(); // no second dead letter follows
    expect(dead.got).toHaveLength(1);
  });

  test("finishes the in-flight batch on stop and resumes after it on restart", async ({ bus }) => {
    let started = false;
    let stopRequested = false;
    let finishedAfterStop = false;
    const first = await consume(bus(), {
      topic: "resume",
      group: "resume-g",
      handler: async () => {
        started = true;
        // Still working when stop() is called: stop must wait for this batch and commit it.
        await waitFor("stop requested", () => stopRequested, 10_000);
        await pause(100); // the batch's work, going on after the stop request
        finishedAfterStop = true;
      },
    });
    const publisher = bus();
    await publisher.publish(
      "resume",
      range(0, 5).map((seq) => ({ key: "k", value: { seq } })),
    );
    await waitFor("first batch started", () => started);
    stopRequested = true;
    await first.sub.stop();
    expect(finishedAfterStop).toBe(true);
    const handledBefore = seqs(first.got);
    expect(handledBefore.length).toBeGreaterThan(0);

    await publisher.publish(
      "resume",
      range(5, 10).map((seq) => ({ key: "k", value: { seq } })),
    );
    const second = await consume(bus(), { topic: "resume", group: "resume-g" });
    const expected = range(0, 10).filter((s) => !handledBefore.includes(s));
    await waitFor("the rest after restart", () => second.got.length >= expected.length);
    await quiet(); // nothing handled before is handed out again
    expect(seqs(second.got).sort((x, y) => x - y)).toEqual(expected);
  });
}

function traceCases(test: CaseTest, makeBus: () => EventBus): void {
  // The consumer joins its group beside the other cases (a join takes seconds on the Kafka mock); the
  // case itself runs after them, alone: it installs a global context manager and propagator.
  let consumerBus: EventBus | undefined;
  let joined: ReturnType<typeof consume> | undefined;
  beforeAll(() => {
    consumerBus = makeBus();
    joined = consume(consumerBus, { topic: "trace", group: "trace-g" });
    joined.catch(() => {}); // the case awaits it and fails with its error
  });
  afterAll(async () => {
    await consumerBus?.close();
  });
  describe.sequential("trace context", () => {
    const contextManager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      contextManager.enable();
      context.setGlobalContextManager(contextManager);
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    });
    afterAll(() => {
      propagation.disable();
      context.disable();
    });

    test("travels in headers from publisher to consumer", async ({ bus }) => {
      const traceId = randomBytes(16).toString("hex");
      const spanId = randomBytes(8).toString("hex");
      const b = bus();
      const { got } = await joined!;
      const parent = trace.setSpanContext(context.active(), {
        traceId,
        spanId,
        traceFlags: TraceFlags.SAMPLED,
      });
      await context.with(parent, () => b.publish("trace", [{ key: "k", value: { seq: 1 } }]));
      await waitFor("traced message", () => got.length >= 1);
      expect(got[0]!.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      const extracted = trace.getSpanContext(contextOf(got[0]!));
      expect(extracted).toMatchObject({ traceId, spanId, isRemote: true });
    });
  });
}

function pingCases(test: CaseTest, options: ConformanceOptions): void {
  test("ping resolves while the broker is reachable", async ({ bus }) => {
    await expect(bus().ping()).resolves.toBeUndefined();
  });

  test("lag counts what a group has not handled, and falls to 0 once it has", async ({ bus }) => {
    const b = bus();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let handled = 0;
    await b.subscribe<Seq>({
      topic: "lag",
      group: "lag-g",
      maxBatchSize: 5,
      handler: async (batch) => {
        await held;
        handled += batch.length;
      },
    });
    await b.publish(
      "lag",
      range(0, 20).map((seq) => ({ key: "k", value: { seq } })),
    );
    const lagOf = async () => (await b.lag()).find((l) => l.topic === "lag" && l.group === "lag-g")?.messages;
    const until = async (what: string, check: () => Promise<boolean>) => {
      const deadline = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what} (lag ${await lagOf()})`);
        await pause(50);
      }
    };
    // Delivered and held, or not delivered yet: all 20 are ahead of the group.
    await until("a lag of 20 while the handler holds", async () => (await lagOf()) === 20);
    release();
    await until("no lag once every message is handled", async () => (await lagOf()) === 0);
    expect(handled).toBe(20);
  });

  const makeUnreachable = options.makeUnreachableBus;
  test(
    "ping rejects when the broker is unreachable",
    async ({ closeAfter }) => {
      const b = makeUnreachable!();
      closeAfter(b);
      await expect(b.ping()).rejects.toThrow();
    },
    !makeUnreachable,
  );
}
