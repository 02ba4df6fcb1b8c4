import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { topicName } from "../src/index.ts";
import { type KafkaMock, startKafkaMock } from "../src/testing/index.ts";
import { conformanceTopics, runKafkaConformance } from "./conformance.ts";

// The mock broker cannot create topics through the admin API: the launcher creates them.
const prefix = `bus-test-${randomUUID().slice(0, 8)}`;
let mock: KafkaMock;

beforeAll(async () => {
  mock = await startKafkaMock({ topics: conformanceTopics.map((t) => topicName(prefix, t)), partitions: 3 });
});

afterAll(async () => {
  await mock?.stop();
});

runKafkaConformance("kafka (librdkafka mock)", {
  prefix,
  brokers: () => mock.brokers,
  // Short group timeouts: the mock makes a join wait sessionTimeout - 1 s. Real Kafka rejects
  // sessions under 6 s, so these stay test-only.
  kafka: { sessionTimeout: 3000, rebalanceTimeout: 3000, heartbeatInterval: 300 },
});
