import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { type BusConfig, createBus, topicName } from "../src/index.ts";
import { type KafkaMock, startKafkaMock } from "../src/testing/index.ts";
import { conformanceTopics, runConformance } from "./conformance.ts";
import { testLogger } from "./helpers.ts";

// The mock broker cannot create topics through the admin API: the launcher creates them.
const prefix = `bus-test-${randomUUID().slice(0, 8)}`;
let mock: KafkaMock;

beforeAll(async () => {
  mock = await startKafkaMock({ topics: conformanceTopics.map((t) => topicName(prefix, t)), partitions: 3 });
});

afterAll(async () => {
  await mock?.stop();
});

// Short group timeouts: the mock makes a join wait sessionTimeout - 1 s. Real Kafka rejects
// sessions under 6 s, so these stay test-only.
const testKafka: BusConfig["kafka"] = {
  sessionTimeout: 3000,
  rebalanceTimeout: 3000,
  heartbeatInterval: 300,
};

runConformance(
  "kafka (librdkafka mock)",
  () =>
    createBus({
      kind: "kafka",
      clientId: "bus-test",
      prefix,
      kafkaBrokers: mock.brokers,
      kafka: testKafka,
      logger: testLogger(),
    }),
  {
    perKeyOrderAcrossConsumers: true,
    publishOrderAcrossKeys: "Kafka orders messages only within a partition",
    countsRedeliveries: false,
    makeUnreachableBus: () =>
      createBus({
        kind: "kafka",
        clientId: "bus-test",
        kafkaBrokers: ["127.0.0.1:1"],
        kafka: testKafka,
        logger: testLogger(),
      }),
  },
);
