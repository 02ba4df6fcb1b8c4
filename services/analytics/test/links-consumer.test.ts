// The links consumer against a real ClickHouse (chDB in memory), with its handler called directly
// (decision 0044), as a bus delivery would call it: one delivery mixing campaign membership, link
// events and a message it cannot read stores the campaign and the links in one insert each and skips
// the unreadable one; a redelivered batch changes nothing. A workspace's deletion empties every table of
// it, twice as well as once, and leaves the other workspaces alone.
import { randomUUID } from "node:crypto";
import type { EventBus, IncomingMessage, SubscribeOptions } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { NO_WORKSPACE } from "@kurz/contracts";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { subscribeLinks } from "../src/ingest/links.ts";
import { clickRows } from "./click-rows-fixture.ts";

let ch: KurzClickHouse;
let options: SubscribeOptions<unknown> | undefined;
const warnings: string[] = [];
const inserts: string[] = [];

const bus = {
  subscribe: async (opts: SubscribeOptions<unknown>) => {
    options = opts;
    return { stop: async () => {} };
  },
} as unknown as EventBus;

const logger = {
  warn: (_o: object, m?: string) => warnings.push(m ?? ""),
  info: () => {},
  error: () => {},
  debug: () => {},
} as never;

beforeAll(async () => {
  const real = await openMigratedChdb();
  // The real client, with each insert's table noted.
  ch = {
    ...real,
    insert: (table: string, rows: readonly object[]) => {
      inserts.push(table);
      return real.insert(table, rows);
    },
  } as KurzClickHouse;
  await subscribeLinks({ bus, ch, logger });
});

afterAll(async () => {
  await ch?.close();
});

const message = (value: unknown): IncomingMessage<unknown> => ({
  topic: "links",
  key: "k",
  value,
  headers: {},
  id: randomUUID(),
  deliveryAttempt: 1,
});

const account = randomUUID();
const linkEvent = (code: string, owner = account) => {
  const id = randomUUID();
  return {
    v: 1,
    type: "link.created",
    link_id: id,
    account_id: owner,
    short_code: code,
    occurred_at: new Date().toISOString(),
    event_id: randomUUID(),
    link: {
      id,
      account_id: owner,
      short_code: code,
      original_url: `https://example.com/${code}`,
      title: code,
      is_active: true,
      expires_at: null,
      has_password: false,
      analytics_public: false,
      analytics_shared_fields: null,
    },
  };
};

describe("the links consumer", () => {
  it("stores a mixed delivery's campaign and links in one insert each, skipping what it cannot read", async () => {
    const links = [linkEvent("lc-a"), linkEvent("lc-b")];
    const campaign = {
      v: 1,
      type: "campaign.links",
      campaign_id: 7,
      account_id: account,
      links: [{ id: links[0]!.link_id, short_code: "lc-a" }],
      deleted: false,
      occurred_at: new Date().toISOString(),
    };
    const batch = [
      message(links[0]),
      message(campaign),
      message({ type: "campaign.links", v: 1 }), // its type, not its shape
      message({ type: "link.created" }),
      message("not an event"),
      message(links[1]),
    ];
    for (let round = 0; round < 2; round++) {
      inserts.length = 0;
      await options!.handler(batch);
      expect(inserts.sort()).toEqual(["campaign_members", "links"]);
    }
    expect(warnings).toHaveLength(6); // three unreadable messages, in each of the two rounds
    const stored = await ch.query<{ short_code: string }>(
      "SELECT short_code FROM links FINAL WHERE account_id = {a:UUID} ORDER BY short_code",
      { a: account },
    );
    expect(stored.map((r) => r.short_code)).toEqual(["lc-a", "lc-b"]);
    const members = await ch.query<{ n: number }>(
      "SELECT count() AS n FROM campaign_members FINAL WHERE campaign_id = 7",
      {},
    );
    expect(members[0]?.n).toBe(1);
  });
});

describe("a workspace's deletion (account.deleted)", () => {
  it("deletes every row of the workspace from every table, keeps nameless tombstones, and a redelivery is harmless", async () => {
    const gone = randomUUID();
    const stays = randomUUID();
    const mine = [linkEvent("del-a", gone), linkEvent("del-b", gone)];
    const theirs = linkEvent("keep-a", stays);
    await options!.handler([...mine, theirs].map(message));
    await writeClicks(ch, [
      ...clickRows(mine[0]!.link_id, gone, 3),
      ...clickRows(mine[1]!.link_id, gone, 2),
      ...clickRows(theirs.link_id, stays, 4),
    ]);
    const deleted = {
      v: 1,
      type: "account.deleted",
      account_id: gone,
      occurred_at: new Date().toISOString(),
    };
    const ids = mine.map((l) => l.link_id);

    const count = async (table: string, where: string) =>
      Number(
        (
          await ch.query<{ n: number }>(`SELECT count() AS n FROM ${table} WHERE ${where}`, {
            a: gone,
            ids,
            other: theirs.link_id,
          })
        )[0]?.n,
      );
    const byLink = [
      "clicks",
      "link_hourly",
      "link_daily",
      "link_visitors_hourly",
      "link_visitors_daily",
      "link_stats",
      "link_dim_total",
    ];
    for (const table of byLink)
      expect(await count(table, "link_id IN {ids:Array(UUID)}"), table).toBeGreaterThan(0);

    for (let round = 0; round < 2; round++) {
      await options!.handler([message(deleted)]);
      for (const table of byLink) expect(await count(table, "link_id IN {ids:Array(UUID)}"), table).toBe(0);
      for (const table of ["clicks", "link_hourly", "link_daily", "links", "campaign_members"]) {
        expect(await count(table, "account_id = {a:UUID}"), table).toBe(0);
      }
      const tombstones = await ch.query<{ account_id: string; short_code: string; deleted: number }>(
        "SELECT toString(account_id) AS account_id, short_code, deleted FROM links FINAL WHERE link_id IN {ids:Array(UUID)}",
        { ids },
      );
      expect(tombstones).toEqual([
        { account_id: NO_WORKSPACE, short_code: "", deleted: 1 },
        { account_id: NO_WORKSPACE, short_code: "", deleted: 1 },
      ]);
    }
    // The other workspace's link and clicks are untouched.
    expect(await count("clicks", "link_id = {other:UUID}")).toBe(4);
    expect(await count("links", "link_id = {other:UUID} AND deleted = 0")).toBe(1);
  });

  it("keeps only the tombstone when a link's link.deleted arrives after its workspace's deletion (Kafka)", async () => {
    const gone = randomUUID();
    const created = linkEvent("late-a", gone);
    await options!.handler([message(created)]);
    await options!.handler([
      message({ v: 1, type: "account.deleted", account_id: gone, occurred_at: new Date().toISOString() }),
    ]);
    const late = {
      v: 1,
      type: "link.deleted",
      link_id: created.link_id,
      account_id: gone,
      short_code: "late-a",
      occurred_at: created.occurred_at,
      event_id: randomUUID(),
    };
    await options!.handler([message(late)]);
    const rows = await ch.query<{ account_id: string }>(
      "SELECT toString(account_id) AS account_id FROM links WHERE link_id = {id:UUID}",
      { id: created.link_id },
    );
    expect(rows).toEqual([{ account_id: NO_WORKSPACE }]);
  });

  it("keeps only a nameless tombstone when a campaign's membership event arrives after its workspace's deletion (Kafka)", async () => {
    const gone = randomUUID();
    const campaignId = 700_000 + Math.floor(Math.random() * 100_000);
    const before = new Date(Date.now() - 1_000).toISOString();
    const link = linkEvent("late-camp", gone);
    await options!.handler([
      message({
        v: 1,
        type: "account.deleted",
        account_id: gone,
        occurred_at: new Date().toISOString(),
        campaign_ids: [campaignId],
      }),
    ]);
    // Written before the deletion, delivered after it.
    await options!.handler([
      message({
        v: 1,
        type: "campaign.links",
        campaign_id: campaignId,
        account_id: gone,
        links: [{ id: link.link_id, short_code: "late-camp" }],
        deleted: false,
        occurred_at: before,
      }),
    ]);
    const rows = await ch.query<{ account_id: string; codes: string[] }>(
      "SELECT toString(account_id) AS account_id, short_codes AS codes FROM campaign_members WHERE campaign_id = {id:UInt32}",
      { id: campaignId },
    );
    expect(rows).toEqual([{ account_id: NO_WORKSPACE, codes: [] }]);
  });
});
