// A Kafka outage under the redirect: librdkafka's mock broker drops its connections and refuses new
// ones, then comes back on the same address. Redirects must keep answering 302 throughout, and every
// click made meanwhile must reach the clicks topic exactly once, after memory and the disk spool
// are replayed.
import { waitFor } from "@kurz/testing";
import { describe, expect, it } from "vitest";
import { clickMaker, expectEveryClickOnce, observeClicks } from "./support/click-observer.ts";
import { numberedRecord } from "./support/records.ts";
import { useRedirectFixture } from "./support/redirect-fixture.ts";
import { metrics } from "./support/redirect-process.ts";

const t = useRedirectFixture({
  name: "redirect-kafka-outage",
  kafkaPartitions: 3,
  // Small enough that the outage overflows memory into the disk spool.
  env: { CLICK_BUFFER_MAX: "40" },
  before: (f) => {
    for (let i = 1; i <= 5; i++) f.mgmt.links.set(`code${i}`, numberedRecord(i, `https://example.com/${i}`));
  },
});

const clicks = clickMaker(() => t.redirect.url);
const follow = clicks.follow;

describe("redirect during a Kafka outage", () => {
  it("publishes to Kafka while the broker is up", async () => {
    for (let i = 0; i < 10; i++) expect(await follow(`code${1 + (i % 5)}`)).toBe(302);
    await waitFor(async () => (await metrics(t.redirect)).clicks_published_total === clicks.made, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: "the first clicks published",
    });
  });

  it("keeps answering 302 with the broker down, holding clicks in memory, then on disk", {
    timeout: 30_000,
  }, async () => {
    await t.kafka.setBroker("down");
    const before = (await metrics(t.redirect)).clicks_published_total!;
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push(await follow(`code${1 + (i % 5)}`));
    expect(new Set(statuses)).toEqual(new Set([302]));
    const m = await waitFor(
      async () => {
        const m = await metrics(t.redirect);
        return m.clicks_published_total! + m.clicks_buffered! + m.clicks_spooled! === clicks.made ? m : null;
      },
      { timeoutMs: 10_000, intervalMs: 200, description: "every click buffered or spooled" },
    );
    // The outage's length is what this step is about, so it is slept: down for longer than a publish's
    // 3 s timeout, the publisher's retries and kafkajs's own reconnect attempts overlap, as in a real outage.
    await new Promise((r) => setTimeout(r, 6_000));
    for (let i = 0; i < 20; i++) expect(await follow(`code${1 + (i % 5)}`)).toBe(302);
    expect(m.clicks_published_total).toBe(before);
    expect((await metrics(t.redirect)).clicks_published_total).toBe(before);
    expect(m.clicks_buffered).toBeLessThanOrEqual(40);
    expect(m.clicks_spooled).toBeGreaterThan(0);
    expect(m.clicks_dropped_total).toBe(0);
  });

  it("replays memory and spool once the broker is back", async () => {
    await t.kafka.setBroker("up");
    await waitFor(
      async () => {
        const m = await metrics(t.redirect);
        return m.clicks_buffered === 0 && m.clicks_spooled === 0 && m.clicks_published_total === clicks.made;
      },
      { timeoutMs: 60_000, intervalMs: 250, description: "buffer and spool replayed to Kafka" },
    );
  }, 70_000);

  it("delivered every click exactly once, each link's in order", async () => {
    const observer = await observeClicks({ prefix: t.prefix, kafkaBrokers: t.kafka.brokers });
    try {
      await expectEveryClickOnce(observer, t.redirect, clicks.made, {
        markers: ["code1", "code2", "code3", "code4", "code5"],
        timeoutMs: 30_000,
      });
      expect((await metrics(t.redirect)).clicks_dropped_total).toBe(0);
    } finally {
      await observer.stop();
    }
  }, 60_000);
});
