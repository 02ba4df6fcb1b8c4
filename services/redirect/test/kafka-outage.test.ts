// A Kafka outage under the redirect: librdkafka's mock broker drops its connections and refuses new
// ones, then comes back on the same address. Redirects must keep answering 302 throughout, and every
// click made meanwhile must reach the clicks topic exactly once, after memory and the disk spool
// are replayed.
import { topicName } from "@kurz/bus";
import { type KafkaMock, startKafkaMock } from "@kurz/bus/testing";
import { TOPICS } from "@kurz/contracts";
import {
  cleanupRedisPrefix,
  printProcessOutputOnFailure,
  testRedisUrl,
  uniquePrefix,
  waitFor,
} from "@kurz/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickMaker, expectEveryClickOnce, observeClicks } from "./support/click-observer.ts";
import { type FakeManagement, startFakeManagement } from "./support/fake-management.ts";
import { numberedRecord } from "./support/records.ts";
import { bootRedirect, metrics, type RedirectProcess } from "./support/redirect-process.ts";

printProcessOutputOnFailure();

const prefix = uniquePrefix("redirect-kafka-outage");
const token = `token-${prefix}`;

let kafka: KafkaMock;
let mgmt: FakeManagement;
let redirect: RedirectProcess;

const clicks = clickMaker(() => redirect.url);
const follow = clicks.follow;

beforeAll(async () => {
  kafka = await startKafkaMock({ topics: [topicName(prefix, TOPICS.clicks)], partitions: 3 });
  mgmt = await startFakeManagement(token);
  for (let i = 1; i <= 5; i++) mgmt.links.set(`code${i}`, numberedRecord(i, `https://example.com/${i}`));
  redirect = await bootRedirect({
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    BUS: "kafka",
    KAFKA_BROKERS: kafka.brokers.join(","),
    BUS_PREFIX: prefix,
    INTERNAL_TOKEN: token,
    MANAGEMENT_URL: mgmt.url,
    // Small enough that the outage overflows memory into the disk spool.
    CLICK_BUFFER_MAX: "40",
  });
}, 120_000);

afterAll(async () => {
  if (redirect) expect(await redirect.proc.stop()).toBe(0);
  await mgmt?.close();
  await kafka?.stop();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

describe("redirect during a Kafka outage", () => {
  it("publishes to Kafka while the broker is up", async () => {
    for (let i = 0; i < 10; i++) expect(await follow(`code${1 + (i % 5)}`)).toBe(302);
    await waitFor(async () => (await metrics(redirect)).clicks_published_total === clicks.made, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: "the first clicks published",
    });
  });

  it("keeps answering 302 with the broker down, holding clicks in memory, then on disk", {
    timeout: 30_000,
  }, async () => {
    await kafka.setBroker("down");
    const before = (await metrics(redirect)).clicks_published_total!;
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push(await follow(`code${1 + (i % 5)}`));
    expect(new Set(statuses)).toEqual(new Set([302]));
    const m = await waitFor(
      async () => {
        const m = await metrics(redirect);
        return m.clicks_published_total! + m.clicks_buffered! + m.clicks_spooled! === clicks.made ? m : null;
      },
      { timeoutMs: 10_000, intervalMs: 200, description: "every click buffered or spooled" },
    );
    // Down for longer than a publish's 3 s timeout, so the publisher's retries and kafkajs's own
    // reconnect attempts overlap, as they do in a real outage.
    await new Promise((r) => setTimeout(r, 6_000));
    for (let i = 0; i < 20; i++) expect(await follow(`code${1 + (i % 5)}`)).toBe(302);
    expect(m.clicks_published_total).toBe(before);
    expect((await metrics(redirect)).clicks_published_total).toBe(before);
    expect(m.clicks_buffered).toBeLessThanOrEqual(40);
    expect(m.clicks_spooled).toBeGreaterThan(0);
    expect(m.clicks_dropped_total).toBe(0);
  });

  it("replays memory and spool once the broker is back", async () => {
    await kafka.setBroker("up");
    await waitFor(
      async () => {
        const m = await metrics(redirect);
        return m.clicks_buffered === 0 && m.clicks_spooled === 0 && m.clicks_published_total === clicks.made;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: "buffer and spool replayed to Kafka" },
    );
  }, 70_000);

  it("delivered every click exactly once, each link's in order", async () => {
    const observer = await observeClicks({ prefix, kafkaBrokers: kafka.brokers });
    try {
      await expectEveryClickOnce(observer, clicks.made, { timeoutMs: 30_000, settleMs: 1_000 });
      expect((await metrics(redirect)).clicks_dropped_total).toBe(0);
    } finally {
      await observer.stop();
    }
  }, 60_000);
});
