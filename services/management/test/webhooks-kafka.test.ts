// The webhook flow on the Kafka adapter (librdkafka's mock cluster): the same consumers and dispatcher
// as on Redis Streams, with per-link order kept across partitions.
import { startKafkaMock } from "@kurz/bus/testing";
import { uniquePrefix } from "@kurz/testing";
import { stackTopics } from "@kurz/testing/stack";
import { useStack } from "@kurz/testing/use-stack";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startLinksStack } from "./links-helpers.ts";
import { runWebhookFlow } from "./webhooks-flow.ts";
import { FAST_WEBHOOKS_ENV, startReceiver } from "./webhooks-helpers.ts";

const prefix = uniquePrefix("wh-kafka");
let brokers: string[] = [];
let stopKafka: () => Promise<void> = async () => {};

beforeAll(async () => {
  const kafka = await startKafkaMock({ topics: stackTopics(prefix), partitions: 3 });
  brokers = kafka.brokers;
  stopKafka = () => kafka.stop();
});
afterAll(() => stopKafka());

const bed = useStack(() =>
  startLinksStack({
    ...FAST_WEBHOOKS_ENV,
    BUS: "kafka",
    BUS_PREFIX: prefix,
    KAFKA_BROKERS: brokers.join(","),
    KAFKA_SESSION_TIMEOUT_MS: "3000",
    KAFKA_REBALANCE_TIMEOUT_MS: "3000",
    KAFKA_HEARTBEAT_MS: "300",
  }),
);

describe("webhooks on the Kafka bus", () => {
  it("delivers link events in order and batched clicks, signed, and logs them", async () => {
    const receiver = await startReceiver();
    try {
      await runWebhookFlow(bed.stack, receiver, bed.prisma);
    } finally {
      await receiver.close();
    }
  });
});
