// A click's destination from the bus to the link's analytics: the click consumer (in process, over a
// Redis bus, into embedded ClickHouse) stores it from v2 batches with a tenth tuple member, from v2
// batches of nine (a redirect from before destinations, or a click sent to the default) and from v1
// batches with or without the member; a batch with a destination that is none is dead-lettered whole.
import { randomUUID } from "node:crypto";
import { createBus, type EventBus } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type ClickEvent, clickPartitionKey, encodeClickBatch, TOPICS } from "@kurz/contracts";
import { createLogger } from "@kurz/service-kit";
import { cleanupRedisPrefix, ensureRedis, testRedisUrl, uniquePrefix, uuidv7, waitFor } from "@kurz/testing";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GeoIp } from "../src/enrich/geoip.ts";
import { VisitorHasher } from "../src/enrich/visitor-hash.ts";
import { subscribeClicks } from "../src/ingest/clicks.ts";
import { linkStats } from "../src/queries/link-stats.ts";

const prefix = uniquePrefix("an-dest");
const HOUR = 3_600_000;
// Two days back from the start of this hour: in the past, within link_stats' click rows.
const base = Math.floor(Date.now() / HOUR) * HOUR - 48 * HOUR;
const link = randomUUID();
const account = randomUUID();
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";

let bus: EventBus;
let ch: KurzClickHouse;
let stop: () => Promise<void>;

beforeAll(async () => {
  await ensureRedis();
  bus = createBus({ kind: "redis", clientId: "dest-test", prefix, redisUrl: testRedisUrl() });
  ch = await openMigratedChdb();
  const subscription = await subscribeClicks({
    bus,
    ch,
    logger: createLogger("dest-test", "warn"),
    geo: new GeoIp(""),
    visitors: new VisitorHasher("test"),
  });
  stop = () => subscription.stop();
});
afterAll(async () => {
  await stop?.();
  await bus?.close();
  await ch?.close();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

let n = 0;
function click(destination?: string, userAgent = FIREFOX): ClickEvent {
  const ms = base + ++n * 60_000;
  return {
    v: 1,
    click_id: uuidv7(ms),
    link_id: link,
    account_id: account,
    short_code: "dest",
    ts: new Date(ms).toISOString(),
    ip: `192.0.2.${n}`,
    user_agent: userAgent,
    referrer: null,
    host: "kurz.test",
    ...(destination === undefined ? {} : { destination }),
  };
}

it("stores each click's destination, whichever batch brought it, and breaks the link's clicks down by it", async () => {
  const v2 = [
    click("rule:2"),
    click("rule:2"),
    click("default"),
    click(),
    click("ios"),
    click("split:1", SLACK),
  ];
  const encoded = encodeClickBatch(v2);
  // A tenth member only where the destination is not the default.
  expect(encoded.clicks.map((c) => c.length)).toEqual([10, 10, 9, 9, 10, 10]);
  const old = click();
  const nine = {
    v: 2,
    clicks: [[old.click_id, link, account, "dest", old.ts, old.ip, FIREFOX, null, "kurz.test"]],
  };
  const v1 = [click("split:1"), click("expired"), click(), click("broken")];
  const bogus = click();
  const rejected = {
    v: 2,
    clicks: [[bogus.click_id, link, account, "dest", bogus.ts, null, FIREFOX, null, "kurz.test", "rule:x"]],
  };
  await bus.publish(
    TOPICS.clicks,
    [encoded, nine, { v: 1, clicks: v1 }, rejected].map((value) => ({ key: clickPartitionKey(link), value })),
  );

  const stored = async () =>
    ch.query<{ id: string; destination: string }>(
      "SELECT toString(click_id) AS id, destination FROM clicks FINAL WHERE link_id = {link:UUID}",
      { link },
    );
  await waitFor(async () => (await stored()).length >= 11, {
    timeoutMs: 30_000,
    intervalMs: 100,
    description: "every valid click stored",
  });
  const byId = new Map((await stored()).map((r) => [r.id, r.destination]));
  expect(byId.size).toBe(11);
  expect(byId.has(bogus.click_id)).toBe(false);
  for (const c of [...v2, old, ...v1]) expect(byId.get(c.click_id)).toBe(c.destination ?? "default");

  // The bot's click (split:1 from Slack) is left out, as from every breakdown; the default is every
  // human click no rule, arm or fallback sent.
  const expected = [
    { destination: "default", count: 4 },
    { destination: "rule:2", count: 2 },
    { destination: "broken", count: 1 },
    { destination: "expired", count: 1 },
    { destination: "ios", count: 1 },
    { destination: "split:1", count: 1 },
  ];
  const ref = { link_id: link, account_id: account, short_code: "dest" };
  const allTime = await linkStats(ch, ref, null);
  expect(allTime.total_clicks).toBe(10);
  expect(allTime.bot_clicks).toBe(1);
  expect(allTime.destinations).toEqual(expected);
  // A period with times of day: whole hours and the clicks of partial ones.
  const period = { from: new Date(base + 30_000), to: new Date(base + 2 * HOUR) };
  expect((await linkStats(ch, ref, period)).destinations).toEqual(expected);
  expect((await linkStats(ch, ref, period, "hour")).destinations).toEqual(expected);
  // A period without the first two clicks (both rule:2).
  const later = { from: new Date(base + 2 * 60_000 + 1), to: new Date(base + 2 * HOUR) };
  expect((await linkStats(ch, ref, later)).destinations).toEqual(
    expected.filter((d) => d.destination !== "rule:2"),
  );
});
