// The test helpers that tell where a topic's messages are: the partition a key goes to, and each
// partition's offsets against a group's committed ones.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createBus, type EventBus, topicName } from "../src/index.ts";
import {
  type KafkaMock,
  kafkaOffsets,
  kafkaOffsetsReader,
  kafkaPartitionOf,
  startKafkaMock,
} from "../src/testing/index.ts";
import { testLogger } from "./helpers.ts";

const prefix = `offsets-${randomUUID().slice(0, 8)}`;
const topic = topicName(prefix, "t");
let mock: KafkaMock;
let bus: EventBus;

beforeAll(async () => {
  mock = await startKafkaMock({ topics: [`${topic}:6`], brokers: 3 });
  bus = createBus({
    kind: "kafka",
    clientId: "offsets",
    prefix,
    kafkaBrokers: mock.brokers,
    logger: testLogger(),
  });
});
afterAll(async () => {
  await bus?.close();
  await mock?.stop();
});

it("names the partition the bus publishes a key to, and the offsets of every partition", async () => {
  const keys = ["a", "b", "c", "d", "e", "f", "g", "h"];
  for (const [i, key] of keys.entries())
    await bus.publish(
      "t",
      Array.from({ length: i + 1 }, () => ({ key, value: i })),
    );
  const expected = new Map<number, number>();
  for (const [i, key] of keys.entries()) {
    const p = kafkaPartitionOf(key, 6);
    expected.set(p, (expected.get(p) ?? 0) + i + 1);
  }
  const offsets = await kafkaOffsets(mock.brokers, topic, `${prefix}.nobody`);
  expect(offsets).toEqual(
    [0, 1, 2, 3, 4, 5].map((partition) => ({
      partition,
      low: 0,
      high: expected.get(partition) ?? 0,
      committed: -1,
    })),
  );
});

it("reads the same offsets over one connection, after a publish and after the brokers' outage", async () => {
  const group = `${prefix}.nobody`;
  const reader = kafkaOffsetsReader(mock.brokers);
  try {
    expect(await reader.read(topic, group)).toEqual(await kafkaOffsets(mock.brokers, topic, group));
    await bus.publish("t", [{ key: "a", value: 0 }]);
    const published = await kafkaOffsets(mock.brokers, topic, group);
    expect(await reader.read(topic, group)).toEqual(published);
    // The outage drops the reader's connection: a read fails at most once, and the next connects again.
    await mock.setBroker("down");
    await mock.setBroker("up");
    const again = await reader.read(topic, group).catch(() => reader.read(topic, group));
    expect(again).toEqual(published);
  } finally {
    await reader.close();
  }
});
