// The outbox relay on a real Postgres and a real Redis Streams bus (decision 0042): it publishes the
// events in id order and deletes what it published, so the table holds only events not yet out;
// while another session holds the relay's lock nothing is published or deleted; an event written
// during a round is neither published nor deleted by it.
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
import { OutboxRelay, RELAY_LOCK } from "../src/outbox.ts";

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

it("publishes every event once, in id order, and deletes what it published", async () => {
  await write(0, 7);
  await drain(relay());
  expect(await prisma.outboxEvent.count()).toBe(0);
  await waitFor(() => received.length >= 7, { description: "7 events on the bus" });
  expect(received.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(received.map((r) => r.key)).toEqual(["k0", "k1", "k2", "k3", "k4", "k5", "k6"]);
  expect(errors).toEqual([]);
});

it("publishes and deletes nothing while another session holds the relay's lock", async () => {
  const hold = await holdAdvisoryLock(database.url, RELAY_LOCK);
  try {
    await write(10, 2);
    expect(await relay().publishBatch()).toBe(false);
    expect((await prisma.outboxEvent.findMany({ orderBy: { id: "asc" } })).map((e) => e.key)).toEqual([
      "k10",
      "k11",
    ]);
  } finally {
    await hold.release();
  }
  await drain(relay());
  expect(await prisma.outboxEvent.count()).toBe(0);
  await waitFor(() => received.length >= 2, { description: "the held events on the bus" });
  expect(received.map((r) => r.n)).toEqual([10, 11]);
});

it("leaves an event written during a round for the next one", async () => {
  await write(20, 3);
  // A write that commits while the round holds its rows: the round read its batch before it, so the
  // new row is neither published nor deleted by it.
  const slowBus: EventBus = Object.create(bus, {
    publish: {
      value: async (topic: string, messages: Parameters<EventBus["publish"]>[1]) => {
        await write(23, 1);
        return bus.publish(topic, messages);
      },
    },
  });
  const first = new OutboxRelay(prisma, slowBus, { pollMs: 60_000, batchSize: 3, logger: { error() {} } });
  expect(await first.publishBatch()).toBe(true);
  expect((await prisma.outboxEvent.findMany()).map((e) => e.key)).toEqual(["k23"]);
  await drain(relay());
  expect(await prisma.outboxEvent.count()).toBe(0);
  await waitFor(() => received.length >= 4, { description: "4 events on the bus" });
  expect(received.map((r) => r.n)).toEqual([20, 21, 22, 23]);
});
