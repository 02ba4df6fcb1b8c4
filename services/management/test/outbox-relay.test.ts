// The outbox relay on a real Postgres and a real Redis Streams bus (decision 0003): it publishes the
// events in id order and deletes what it published, so the table holds only events not yet out;
// while another session holds the relay's lock nothing is published or deleted; an event written
// during a round is neither published nor deleted by it. Its rounds run on the plain pool (decision
// 0046): a round whose publish fails or hangs commits nothing and leaves its connection and the lock
// free for the next.
import { createBus, type EventBus } from "@kurz/bus";
import { createPrisma, type PrismaClient } from "@kurz/db";
import {
  cleanupRedisPrefix,
  holdAdvisoryLock,
  type TestDatabase,
  testRedisUrl,
  uniquePrefix,
  waitFor,
} from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { OutboxRelay, RELAY_LOCK } from "../src/db/outbox.ts";

const prefix = uniquePrefix("outbox-relay");
let database: TestDatabase;
let prisma: PrismaClient;
let bus: EventBus;
const received: { key: string; n: number }[] = [];
const errors: string[] = [];

beforeAll(async () => {
  database = await createMigratedDatabase("outbox_relay");
  prisma = createPrisma(database.url);
  bus = createBus({ kind: "redis", clientId: "relay-test", prefix, redisUrl: testRedisUrl() });
  await bus.subscribe<{ n: number }>({
    topic: "links",
    group: "relay-test",
    handler: async (messages) => {
      for (const m of messages) received.push({ key: m.key, n: m.value.n });
    },
  });
});

afterAll(async () => {
  await bus?.close();
  await prisma?.$disconnect();
  await database?.drop();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

beforeEach(() => {
  received.length = 0;
});

const relay = () =>
  new OutboxRelay(prisma, bus, {
    pollMs: 60_000,
    batchSize: 3,
    logger: { error: (o: object) => errors.push(JSON.stringify(o)) },
  });

const write = (from: number, count: number) =>
  prisma.outboxEvent.createMany({
    data: Array.from({ length: count }, (_, i) => ({
      topic: "links",
      key: `k${from + i}`,
      payload: { n: from + i },
    })),
  });

const drain = async (r: OutboxRelay) => {
  while (await r.publishBatch()) {}
};

/** The keys of the events still in the table, in id order. */
const keysLeft = async () =>
  (await prisma.outboxEvent.findMany({ orderBy: { id: "asc" } })).map((e) => e.key);

/** A healthy relay drains the table; the events reach the bus in this order. */
const drainedInOrder = async (ns: number[]) => {
  await drain(relay());
  expect(await prisma.outboxEvent.count()).toBe(0);
  await waitFor(() => received.length >= ns.length, { description: `${ns.length} events on the bus` });
  expect(received.map((r) => r.n)).toEqual(ns);
};

/** The test bus with its publish replaced. */
const busWith = (publish: EventBus["publish"]): EventBus =>
  Object.create(bus, { publish: { value: publish } }) as EventBus;

it("publishes every event once, in id order, and deletes what it published", async () => {
  await write(0, 7);
  await drainedInOrder([0, 1, 2, 3, 4, 5, 6]);
  expect(received.map((r) => r.key)).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6"]);
  expect(errors).toEqual([]);
});

it("publishes and deletes nothing while another session holds the relay's lock", async () => {
  const hold = await holdAdvisoryLock(database.url, RELAY_LOCK);
  try {
    await write(10, 2);
    expect(await relay().publishBatch()).toBe(false);
    expect(await keysLeft()).toEqual(["k10", "k11"]);
  } finally {
    await hold.release();
  }
  await drainedInOrder([10, 11]);
});

it("leaves an event written during a round for the next one", async () => {
  await write(20, 3);
  // A write that commits while the round holds its rows: the round read its batch before it, so the
  // new row is neither published nor deleted by it.
  const slowBus = busWith(async (topic, messages) => {
    await write(23, 1);
    return bus.publish(topic, messages);
  });
  const first = new OutboxRelay(prisma, slowBus, { pollMs: 60_000, batchSize: 3, logger: { error() {} } });
  expect(await first.publishBatch()).toBe(true);
  expect(await keysLeft()).toEqual(["k23"]);
  await drainedInOrder([20, 21, 22, 23]);
});

/** Sessions of this test's database with a transaction open and idle (a round's, between statements). */
const openTransactions = async () => {
  const [open] = await prisma.$queryRaw<{ n: bigint }[]>`
    SELECT count(*) AS n FROM pg_stat_activity
    WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
  return Number(open?.n);
};

it("commits nothing of a round whose publish fails, and the next round publishes it all", async () => {
  await write(30, 2);
  const failing = new OutboxRelay(
    prisma,
    busWith(async () => {
      throw new Error("bus down");
    }),
    { pollMs: 60_000, logger: { error() {} } },
  );
  await expect(failing.publishBatch()).rejects.toThrow("bus down");
  expect(await keysLeft()).toEqual(["k30", "k31"]);
  await drainedInOrder([30, 31]);
});

it("gives up a round whose publish hangs, releasing the lock, with nothing deleted", async () => {
  await write(40, 1);
  const hanging = new OutboxRelay(
    prisma,
    busWith(() => new Promise(() => {})),
    { pollMs: 60_000, publishTimeoutMs: 200, logger: { error() {} } },
  );
  await expect(hanging.publishBatch()).rejects.toThrow(/timed out after 200 ms/);
  expect(await keysLeft()).toEqual(["k40"]);
  // The lock went with the rolled-back transaction: another relay's round takes it at once.
  await drainedInOrder([40]);
});

it("survives its connection being cut during a round: the round fails, the next one publishes", async () => {
  await write(50, 1);
  // Postgres ends the relay's session while it publishes (a restart, a failover): the client errors
  // while checked out, which must reach the round, not the process as an uncaught exception.
  const cut = new OutboxRelay(
    prisma,
    busWith(async (topic, messages) => {
      await prisma.$queryRaw`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
      await waitFor(async () => (await openTransactions()) === 0);
      return bus.publish(topic, messages);
    }),
    { pollMs: 60_000, logger: { error() {} } },
  );
  await expect(cut.publishBatch()).rejects.toThrow();
  expect(await keysLeft()).toEqual(["k50"]);
  await drain(relay());
  expect(await prisma.outboxEvent.count()).toBe(0);
  // Published twice (the cut round's publish went out before the delete failed): at-least-once.
  await waitFor(() => received.filter((r) => r.n === 50).length >= 2, { description: "the event twice" });
});

it("ends an idle round without holding a connection", async () => {
  expect(await relay().publishBatch()).toBe(false);
  expect(await openTransactions()).toBe(0);
});
