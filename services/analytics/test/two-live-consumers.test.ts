// Two live click consumers over the same partitions of the Kafka mock cluster (3 brokers), writing
// into one store at the same moment: the rollup race of decision 0049 (both find a click missing,
// both insert it). Each consumer is in its own group here, so every message is held by both, which
// is what a rebalance or a consumer outliving its session does to some messages. The sum of what
// the two consumers inserted shows that their writes did overlap; the store still counts every
// click once, in the raw table (even without FINAL) and in every rollup (decision 0049). Each insert
// is a run of a partition, which both consumers cut alike although their batch sizes differ
// (decision 0049); with one insert per handler batch instead, this test counted 20-40 clicks twice.
import { randomUUID } from "node:crypto";
import { createBus, type EventBus, type Subscription, topicName } from "@kurz/bus";
import { type KafkaMock, startKafkaMock } from "@kurz/bus/testing";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type ClickBatch, clickPartitionKey, TOPICS } from "@kurz/contracts";
import { createLogger } from "@kurz/service-kit";
import { uniquePrefix, uuidv7, waitFor } from "@kurz/testing";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GeoIp } from "../src/enrich/geoip.ts";
import { VisitorHasher } from "../src/enrich/visitor-hash.ts";
import { subscribeClicks } from "../src/ingest/clicks.ts";

const prefix = uniquePrefix("an-two");
const logger = createLogger("two-consumers", "warn");
let kafka: KafkaMock;
let ch: KurzClickHouse;
let publisher: EventBus;
const buses: EventBus[] = [];
const subscriptions: Subscription[] = [];
const insertedBy = [0, 0];

const kafkaBus = (clientId: string) =>
  createBus({
    kind: "kafka",
    clientId,
    prefix,
    kafkaBrokers: kafka.brokers,
    // The mock cluster's group joins wait sessionTimeout - 1 s (docs/decisions/0003): test-only values.
    kafka: { sessionTimeout: 3000, rebalanceTimeout: 3000, heartbeatInterval: 300 },
    logger,
  });

beforeAll(async () => {
  kafka = await startKafkaMock({ topics: [`${topicName(prefix, TOPICS.clicks)}:6`], brokers: 3 });
  ch = await openMigratedChdb();
  publisher = kafkaBus("two-publisher");
}, 60_000);

afterAll(async () => {
  for (const s of subscriptions) await s.stop();
  for (const b of [...buses, publisher]) await b?.close();
  await ch?.close();
  await kafka?.stop();
});

function batch(link: string, account: string, n: number): ClickBatch {
  return {
    v: 1,
    clicks: Array.from({ length: n }, (_, i) => ({
      v: 1 as const,
      click_id: uuidv7(),
      link_id: link,
      account_id: account,
      short_code: `c${link.slice(0, 4)}`,
      ts: new Date(Date.now() - i).toISOString(),
      ip: null,
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
      referrer: i % 2 === 0 ? null : "https://ref.example/",
      host: "kurz.test",
    })),
  };
}

it("counts every click once while two consumers write the same messages at the same time", {
  timeout: 120_000,
}, async () => {
  const account = randomUUID();
  const handled = [0, 0];
  let published = 0;
  let distinct = 0;
  /** One round: 60 batches of 20 clicks over 6 links, plus publisher retries. */
  const publishRound = async () => {
    const links = Array.from({ length: 6 }, () => randomUUID());
    const batches = Array.from({ length: 60 }, (_, b) => batch(links[b % links.length]!, account, 20));
    // Publisher retries: one batch twice, and one batch's clicks again split into two messages.
    const again = batches[9]!;
    const split: ClickBatch[] = [
      { v: 1, clicks: again.clicks.slice(0, 10) },
      { v: 1, clicks: again.clicks.slice(10) },
    ];
    const messages = [...batches, batches[3]!, ...split].map((value) => ({
      key: clickPartitionKey(value.clicks[0]!.link_id),
      value,
    }));
    await publisher.publish(TOPICS.clicks, messages);
    published += messages.length;
    distinct += 60 * 20;
  };
  // The first round is published before either consumer starts: both then begin on the same
  // messages together, unless one joins its group much later than the other (a loaded machine).
  await publishRound();

  await Promise.all(
    [0, 1].map(async (c) => {
      const bus = kafkaBus(`two-consumer-${c}`);
      buses.push(bus);
      subscriptions.push(
        await subscribeClicks({
          bus,
          ch,
          logger,
          geo: new GeoIp(""),
          visitors: new VisitorHasher("test"),
          group: `analytics-clicks-${c}`,
          // Different batch sizes: each consumer's handler calls cut the partitions differently, and
          // only the runs (decision 0049), the same for both, make their blocks and tokens agree.
          maxBatchSize: c === 0 ? 7 : 3,
          // Two consumers writing into one store at once need a ClickHouse server (embedded chDB has
          // one process, and it one consumer), whose consumers complete interrupted inserts by repeating
          // them: chDB stands in for that server here.
          completion: "repeat",
          onInserted: (rows) => {
            insertedBy[c]! += rows.length;
          },
          onHandled: (count) => {
            handled[c]! += count;
          },
        }),
      );
    }),
  );

  const one = async (sql: string) => Number(Object.values((await ch.query(sql))[0]!)[0]);
  // Rounds until the two consumers' writes have overlapped (later rounds find both consumers live
  // and fetching the same new messages at once); every round's counts must be exact either way. A
  // round overlaps by chance: on an idle machine the first overlap comes in rounds 1, 4, 7, 9, 1, 1, 1
  // and 1 of eight runs, so a bound of ten rounds would fail now and then. Rounds go on for up to 75 s
  // instead (about half a second each on an idle machine), where the chance of none is negligible.
  const roundsUntil = Date.now() + 75_000;
  for (let round = 1; ; round++) {
    await waitFor(async () => handled[0] === published && handled[1] === published, {
      timeoutMs: 60_000,
      intervalMs: 100,
      description: `both consumers handled every message (round ${round})`,
    });
    expect(await one("SELECT count() FROM clicks")).toBe(distinct);
    expect(await one("SELECT uniqExact(click_id) FROM clicks")).toBe(distinct);
    expect(await one("SELECT sum(clicks) FROM link_daily")).toBe(distinct);
    expect(await one("SELECT sum(clicks) FROM link_hourly")).toBe(distinct);
    expect(await one("SELECT sum(clicks) FROM link_dim_total WHERE dim = 'country'")).toBe(distinct);
    // link_stats: every level, click rows as stored (not merged).
    expect(await one("SELECT sum(n) FROM link_stats WHERE level = 'day' AND a = 'referrer'")).toBe(distinct);
    expect(await one("SELECT sum(n) FROM link_stats WHERE level = 'hour' AND a = 'browser'")).toBe(distinct);
    expect(await one("SELECT sum(n) FROM link_stats WHERE level = 'day' AND kind = 's'")).toBe(distinct);
    expect(await one("SELECT sum(n) FROM link_stats WHERE level = 'hour' AND a = 'os'")).toBe(distinct);
    expect(await one("SELECT count() FROM link_stats WHERE level = 'click' AND kind = 's'")).toBe(distinct);
    // Each consumer inserted what it found missing; together more than there are clicks means both
    // wrote some of the same clicks at the same time, and the store kept one of each.
    if (insertedBy[0]! + insertedBy[1]! > distinct || Date.now() > roundsUntil) break;
    await publishRound();
  }
  expect(insertedBy[0]! + insertedBy[1]!, "the two consumers' writes never overlapped").toBeGreaterThan(
    distinct,
  );
});
