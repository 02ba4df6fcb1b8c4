// The webhook consumers' reading of the `links` topic: a campaign's membership event and a workspace's
// deletion share the topic (analytics' input) and are passed over quietly, while a message no version of it can read is warned
// about. Against a real Redis Streams bus and Postgres.
import { createBus, type EventBus, type Subscription } from "@kurz/bus";
import { TOPICS } from "@kurz/contracts";
import { createPrisma, type PrismaClient } from "@kurz/db";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix, waitFor } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { afterAll, beforeAll, expect, it } from "vitest";
import { subscribeWebhookInputs } from "../src/webhooks/consumers.ts";

const prefix = uniquePrefix("webhook-inputs");
const warned: unknown[] = [];
let database: TestDatabase;
let prisma: PrismaClient;
let bus: EventBus;
let subscriptions: Subscription[] = [];

beforeAll(async () => {
  database = await createMigratedDatabase("webhook_inputs");
  prisma = createPrisma(database.url);
  bus = createBus({ kind: "redis", clientId: "webhook-inputs-test", prefix, redisUrl: testRedisUrl() });
  const logger = { warn: (o: unknown) => warned.push(o), info: () => {}, error: () => {}, debug: () => {} };
  subscriptions = await subscribeWebhookInputs({
    prisma,
    retryWindowMs: 60_000,
    now: Date.now,
    bus,
    logger: logger as never,
    onEnqueued: () => {},
  });
});

afterAll(async () => {
  for (const s of subscriptions) await s.stop();
  await bus?.close();
  await prisma?.$disconnect();
  await database?.drop();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

it("passes over a campaign's membership event and a workspace's deletion, and warns of a message it cannot read", async () => {
  await bus.publish(TOPICS.links, [
    {
      key: "campaign:7",
      value: {
        v: 1,
        type: "campaign.links",
        campaign_id: 7,
        account_id: "0190a1b2-0000-7000-8000-0000000000d1",
        links: [],
        deleted: false,
        occurred_at: new Date().toISOString(),
      },
      headers: {},
    },
    {
      key: "account:0190a1b2-0000-7000-8000-0000000000d1",
      value: {
        v: 1,
        type: "account.deleted",
        account_id: "0190a1b2-0000-7000-8000-0000000000d1",
        occurred_at: new Date().toISOString(),
      },
      headers: {},
    },
    { key: "x", value: { type: "link.unheard-of" }, headers: {} },
  ]);
  // One stream keeps publish order: both were handled before the warning came.
  await waitFor(async () => warned.length > 0, { timeoutMs: 15_000, description: "the unreadable message" });
  expect(warned).toHaveLength(1);
});
