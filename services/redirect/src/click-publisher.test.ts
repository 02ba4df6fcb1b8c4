// The publisher against a real Redis Streams bus: batching under a steady stream of clicks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBus, type EventBus } from "@kurz/bus";
import {
  CLICK_BATCH_MAX,
  type ClickEvent,
  clickMessages,
  clickPartitionKey,
  decodeClickBatch,
  TOPICS,
} from "@kurz/contracts";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ClickPublisher } from "./click-publisher.ts";
import { ClickSpool } from "./click-spool.ts";

const prefix = uniquePrefix("click-publisher");
let bus: EventBus;
let redis: Redis;
let dir: string;

beforeAll(() => {
  bus = createBus({ kind: "redis", clientId: "publisher-test", prefix, redisUrl: testRedisUrl() });
  redis = new Redis(testRedisUrl());
  dir = mkdtempSync(join(tmpdir(), "kurz-publisher-test-"));
});

afterAll(async () => {
  await bus.close();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const click = (link = 1): ClickEvent => ({
  v: 1,
  click_id: uuidv7(),
  link_id: `0190a1b2-0000-7000-8000-${String(link).padStart(12, "0")}`,
  account_id: "0190a1b2-0000-7000-8000-0000000000aa",
  short_code: "abc",
  ts: new Date().toISOString(),
  ip: null,
  user_agent: null,
  referrer: null,
  host: null,
});

it("publishes a steady stream in a few batches per interval, not one per bus round trip", async () => {
  const spool = await ClickSpool.open({ dir, name: "steady.spool", maxBytes: 1_000_000 });
  const publisher = new ClickPublisher({ bus, spool, maxBatch: 1_000, flushIntervalMs: 50 });
  // One link's clicks for 300 ms from a loop that yields between pushes, as a busy redirect does:
  // bus replies arrive while clicks keep coming.
  const sent: string[] = [];
  const started = Date.now();
  while (Date.now() - started < 300) {
    for (let i = 0; i < 3; i++) {
      const e = click();
      sent.push(e.click_id);
      publisher.push(e);
    }
    await new Promise((r) => setImmediate(r));
  }
  const elapsed = Date.now() - started;
  await publisher.close();

  const entries = (await redis.xrange(`${prefix}.${TOPICS.clicks}`, "-", "+")) as [string, string[]][];
  const received = entries.flatMap(([, fields]) => {
    const value = fields[fields.indexOf("v") + 1]!;
    return (decodeClickBatch(JSON.parse(value)) ?? []).map((c) => c.click_id);
  });
  expect(received).toEqual(sent);
  // One link: a flush is one bus entry per 200 clicks. Flushes: one per 50 ms timer tick, one per
  // full batch of 1,000, and close's. Publishing each round trip's arrivals at once gave hundreds.
  const flushes = Math.ceil(elapsed / 50) + Math.ceil(sent.length / 1_000) + 1;
  expect(entries.length).toBeLessThanOrEqual(Math.ceil(sent.length / 200) + flushes);
  expect(publisher.metrics).toMatchObject({ published: sent.length, dropped: 0, buffered: 0 });
});

const clickIds = (messages: ReturnType<typeof clickMessages>) =>
  messages.flatMap((m) => (decodeClickBatch(m.value) ?? []).map((c) => c.click_id));

it("groups clicks by partition key for a bus whose keys pick partitions", () => {
  const events = Array.from({ length: 1_000 }, (_, i) => click(i % 300));
  const messages = clickMessages(events, true);
  for (const m of messages) {
    const clicks = decodeClickBatch(m.value)!;
    expect(clicks.length).toBeLessThanOrEqual(CLICK_BATCH_MAX);
    for (const c of clicks) expect(clickPartitionKey(c.link_id)).toBe(m.key);
  }
  // Every click once, and each link's clicks in the order they were made.
  expect(clickIds(messages).sort()).toEqual(events.map((e) => e.click_id).sort());
  const order = new Map(clickIds(messages).map((id, i) => [id, i]));
  for (let link = 0; link < 300; link++) {
    const positions = events.filter((e) => e.link_id.endsWith(String(link).padStart(12, "0")));
    const at = positions.map((e) => order.get(e.click_id)!);
    expect(at).toEqual([...at].sort((a, b) => a - b));
  }
});

it("puts consecutive clicks of any links in one entry on Redis Streams, in click order", async () => {
  expect(bus.partitionsByKey).toBe(false);
  const spool = await ClickSpool.open({ dir, name: "mixed.spool", maxBytes: 1_000_000 });
  const topic = "clicks-mixed";
  const publisher = new ClickPublisher({ bus, spool, topic, maxBatch: 1_000, flushIntervalMs: 10_000 });
  const events = Array.from({ length: 1_000 }, (_, i) => click(i));
  for (const e of events) publisher.push(e);
  await publisher.close();

  const entries = (await redis.xrange(`${prefix}.${topic}`, "-", "+")) as [string, string[]][];
  // 1,000 clicks over 1,000 links: 5 entries of 200, where grouping by partition key made ~64.
  expect(entries).toHaveLength(1_000 / CLICK_BATCH_MAX);
  const received = entries.flatMap(([, fields]) => {
    const value = fields[fields.indexOf("v") + 1]!;
    return (decodeClickBatch(JSON.parse(value)) ?? []).map((c) => c.click_id);
  });
  expect(received).toEqual(events.map((e) => e.click_id));
});
