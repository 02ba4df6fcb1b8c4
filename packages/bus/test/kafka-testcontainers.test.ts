import { randomUUID } from "node:crypto";
import { KafkaContainer, type StartedKafkaContainer } from "@testcontainers/kafka";
import { getContainerRuntimeClient } from "testcontainers";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runKafkaConformance } from "./conformance.ts";

// Real Kafka is the production path, but it needs a container runtime; without one this rejects
// within milliseconds and the suite is reported as skipped.
const hasRuntime = await getContainerRuntimeClient().then(
  () => true,
  () => false,
);

if (!hasRuntime) {
  describe.skip("kafka (testcontainers): no container runtime on this machine", () => {
    it("runs the conformance suite against a real Kafka broker", () => {});
  });
} else {
  const prefix = `bus-test-${randomUUID().slice(0, 8)}`;
  let container: StartedKafkaContainer;
  let brokers: string[] = [];

  beforeAll(async () => {
    container = await new KafkaContainer("confluentinc/cp-kafka:7.9.0").withKraft().start();
    brokers = [`${container.getHost()}:${container.getMappedPort(9093)}`];
  }, 240_000);

  afterAll(async () => {
    await container?.stop();
  });

  runKafkaConformance("kafka (testcontainers)", {
    prefix,
    brokers: () => brokers,
    // Real Kafka auto-creates topics with one partition: create them with three instead.
    // Session timeouts stay at values a real broker accepts (>= 6 s).
    kafka: {
      partitions: 3,
      idempotent: true,
      sessionTimeout: 6000,
      rebalanceTimeout: 6000,
      heartbeatInterval: 500,
    },
  });
}
