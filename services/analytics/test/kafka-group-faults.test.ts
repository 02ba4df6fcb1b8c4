// The click consumer's group disturbed on the Kafka mock cluster (3 brokers, 6 partitions), as the
// fault suite disturbs it: each broker down for 3 s in turn (one of them leads the link's partition,
// one coordinates the group), then the consumer process frozen (SIGSTOP) for longer than its session
// timeout, so that its group rebalances under it. Clicks of one link are published throughout, with
// the publisher retrying what failed, and every one must be counted once: no consumer left stalled
// on a partition, no offset committed past what was written.
// The load stays well under what the mock keeps per partition (about 5 MiB): past that, it drops the
// oldest messages whether read or not, which is a lagging consumer's loss, not a stall (see
// docs/reliability.md and the error the bus logs for it, kafka-log.ts).
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createBus, type EventBus, topicName } from "@kurz/bus";
import { type KafkaMock, kafkaOffsets, startKafkaMock } from "@kurz/bus/testing";
import { createClickHouse } from "@kurz/clickhouse";
import { type ClickBatch, clickPartitionKey, TOPICS } from "@kurz/contracts";
import { type StartedProcess, startProcess, uniquePrefix, uuidv7, waitFor } from "@kurz/testing";
import { bundleFixture } from "@kurz/testing/bundles";
import { CHDB_DATABASE, type MigratedChdb, migratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, expect, it } from "vitest";

const prefix = uniquePrefix("an-kafka-faults");
const clicksTopic = topicName(prefix, TOPICS.clicks);
let kafka: KafkaMock;
let publisher: EventBus;
let consumer: StartedProcess | undefined;
/** The consumer's data directory: a copy of the migrated template (migrated-chdb.ts). */
let data: MigratedChdb;
/** The consumer's bundle (bundleFixture), built while the rest of the setup runs. */
let consumerBundle: string;

beforeAll(async () => {
  [data, kafka, consumerBundle] = await Promise.all([
    migratedChdb(),
    startKafkaMock({ topics: [`${clicksTopic}:6`, `${clicksTopic}.dlq`], brokers: 3 }),
    bundleFixture(join(import.meta.dirname, "fixtures/click-consumer.ts")),
  ]);
  publisher = createBus({
    kind: "kafka",
    clientId: "faults-publisher",
    prefix,
    kafkaBrokers: kafka.brokers,
    logger: { info() {}, warn() {}, error() {} },
  });
}, 60_000);
afterAll(async () => {
  await consumer?.stop("SIGKILL");
  await publisher?.close();
  await kafka?.stop();
  data?.remove();
});

const inserted = (p: StartedProcess) =>
  [...p.output().matchAll(/inserted (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);

it("counts every click once through each broker's outage and a freeze longer than the consumer's session", {
  timeout: 240_000,
}, async () => {
  consumer = await startProcess({
    cmd: process.execPath,
    args: [consumerBundle],
    env: {
      CLICKHOUSE_PATH: data.path,
      CLICKHOUSE_DATABASE: CHDB_DATABASE,
      BUS_PREFIX: prefix,
      KAFKA_BROKERS: kafka.brokers.join(","),
      CRASH_AFTER_INSERTS: "0",
    },
    readyLine: "ready",
    readyTimeoutMs: 60_000,
  });
  const link = randomUUID();
  const account = randomUUID();
  const batch = (): ClickBatch => ({
    v: 1,
    clicks: Array.from({ length: 30 }, () => ({
      v: 1 as const,
      click_id: uuidv7(),
      link_id: link,
      account_id: account,
      short_code: "faults",
      ts: new Date().toISOString(),
      ip: null,
      user_agent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
      referrer: null,
      host: "kurz.test",
    })),
  });

  // About 12 messages of 30 clicks a second (~1 MB a minute): a failed or slow publish is retried,
  // as the redirect's publisher does, so every click reaches the bus at least once.
  let published = 0;
  let publishing = true;
  const unsent: ClickBatch[] = [];
  const load = (async () => {
    // Bounded: stops when told, or after 2 minutes.
    for (const started = Date.now(); (publishing || unsent.length > 0) && Date.now() - started < 120_000; ) {
      if (publishing) unsent.push(batch());
      const sending = unsent.splice(0);
      try {
        await Promise.race([
          publisher.publish(
            TOPICS.clicks,
            sending.map((value) => ({ key: clickPartitionKey(link), value })),
          ),
          // A bound, not a wait: a publish that takes longer counts as failed.
          sleep(5_000).then(() => Promise.reject(new Error("publish timed out"))),
        ]);
        published += sending.length * 30;
      } catch {
        unsent.unshift(...sending);
        await sleep(200); // the retry's backoff
      }
      await sleep(80); // the load's pace
    }
  })();

  /** Waits until the consumer has stored every click published so far: it consumes, or again. */
  const caughtUp = async (what: string) => {
    const target = await waitFor(() => published, { timeoutMs: 30_000, description: "a published click" });
    await waitFor(() => inserted(consumer!) >= target, {
      timeoutMs: 60_000,
      intervalMs: 100,
      description: `the consumer caught up ${what} (${target} clicks)`,
    });
  };
  const brokerDown = async (id: number) => {
    await kafka.setBroker("down", id);
    await sleep(3_000); // the outage's length is the fault
    await kafka.setBroker("up", id);
  };
  await caughtUp("before the faults");
  for (const id of [1, 2, 3]) {
    await brokerDown(id);
    await caughtUp(`after broker ${id}'s outage`);
  }
  // The test's session timeout is 3 s: the group rebalances while the consumer is frozen, for longer.
  process.kill(consumer.pid, "SIGSTOP");
  await sleep(3_500);
  process.kill(consumer.pid, "SIGCONT");
  await caughtUp("after the freeze");
  publishing = false;
  await load;

  await waitFor(async () => inserted(consumer!) >= published, {
    timeoutMs: 90_000,
    intervalMs: 250,
    description: `every published click stored (${published})`,
  });
  const partitions = await kafkaOffsets(kafka.brokers, clicksTopic, topicName(prefix, "analytics-clicks"));
  const used = partitions.filter((p) => p.high > 0);
  // One link, one partition; nothing dropped by the broker, and the group has committed all of it.
  expect(used).toHaveLength(1);
  expect(used[0]).toMatchObject({ low: 0, committed: used[0]!.high });
  expect(await consumer.stop("SIGTERM")).toBe(0);

  const ch = await createClickHouse({ path: data.path, database: CHDB_DATABASE });
  try {
    const one = async (sql: string) => Number(Object.values((await ch.query(sql, { link }))[0]!)[0]);
    expect(await one("SELECT uniqExact(click_id) FROM clicks WHERE link_id = {link:UUID}")).toBe(published);
    expect(await one("SELECT sum(clicks) FROM link_daily WHERE link_id = {link:UUID}")).toBe(published);
  } finally {
    await ch.close();
  }
});
