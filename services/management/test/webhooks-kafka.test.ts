// The webhook flow on the Kafka adapter (librdkafka's mock cluster): the same consumers and dispatcher
// as on Redis Streams, with per-link order kept across partitions.
import { startKafkaMock } from "@kurz/bus/testing";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { printProcessOutputOnFailure, uniquePrefix } from "@kurz/testing";
import { type Stack, stackTopics } from "@kurz/testing/stack";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startLinksStack } from "./links-helpers.ts";
import { runWebhookFlow } from "./webhooks-flow.ts";
import { FAST_WEBHOOKS_ENV, startReceiver } from "./webhooks-helpers.ts";

printProcessOutputOnFailure();

let stack: Stack;
let prisma: PrismaClient;
let stopKafka: () => Promise<void> = async () => {};

beforeAll(async () => {
  const prefix = uniquePrefix("wh-kafka");
  const kafka = await startKafkaMock({ topics: stackTopics(prefix), partitions: 3 });
  stopKafka = () => kafka.stop();
  stack = await startLinksStack({
    ...FAST_WEBHOOKS_ENV,
    BUS: "kafka",
    BUS_PREFIX: prefix,
    KAFKA_BROKERS: kafka.brokers.join(","),
    KAFKA_SESSION_TIMEOUT_MS: "3000",
    KAFKA_REBALANCE_TIMEOUT_MS: "3000",
    KAFKA_HEARTBEAT_MS: "300",
  });
  prisma = createPrisma(stack.databaseUrl);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await stack?.stop();
  await stopKafka();
});

describe("webhooks on the Kafka bus", () => {
  it("delivers link events in order and batched clicks, signed, and logs them", async () => {
    const receiver = await startReceiver();
    try {
      await runWebhookFlow(stack, receiver, prisma);
    } finally {
      await receiver.close();
    }
  });
});
