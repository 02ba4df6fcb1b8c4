// One insert into `clicks` feeds the rollups through materialized views, and each table commits its
// own part, raw clicks first: a consumer killed in between leaves a message's clicks stored without
// their rollup rows. The redelivered message must complete them, not be taken for a copy of stored
// clicks, or those clicks are missing from every count for good (decision 0049; before it, the fault
// suite's SIGKILL of analytics lost the clicks of one in-flight message). Here that state is made
// exactly: the view that reads `clicks` is detached during the first insert, and the message is not
// recorded as complete, as an insert that never returned is not. Both ways of completing such a
// message (exactly-once-insert.ts, decision 0049) must give every count whole: a ClickHouse server's
// ("repeat") and embedded chDB's ("checked"); crash-mid-commit.test.ts has the state only chDB leaves.
import { randomUUID } from "node:crypto";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { openMigratedChdb } from "@kurz/testing/migrated-chdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { type Completion, writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { clickRows } from "./click-rows-fixture.ts";

// The one materialized view that reads `clicks` (click_feed_mv); every rollup is fed from its table.
const VIEWS_ON_CLICKS = ["click_feed_mv"];
let ch: KurzClickHouse;

beforeAll(async () => {
  ch = await openMigratedChdb();
});
afterAll(async () => {
  await ch?.close();
});

const one = async (sql: string, params?: Record<string, unknown>) =>
  Number(Object.values((await ch.query<Record<string, number>>(sql, params))[0]!)[0]);

/** Every count the analytics API reads, for one link. */
async function counts(link: string) {
  const p = { link };
  return {
    raw: await one("SELECT uniqExact(click_id) FROM clicks WHERE link_id = {link:UUID}", p),
    hourly: await one("SELECT sum(clicks) FROM link_hourly WHERE link_id = {link:UUID}", p),
    daily: await one("SELECT sum(clicks) FROM link_daily WHERE link_id = {link:UUID}", p),
    browsersByDay: await one(
      "SELECT sum(n) FROM link_stats WHERE link_id = {link:UUID} AND level = 'day' AND a = 'browser'",
      p,
    ),
    countriesAllTime: await one(
      "SELECT sum(clicks) FROM link_dim_total WHERE link_id = {link:UUID} AND dim = 'country'",
      p,
    ),
    // link_stats: each level on its own; click rows counted as stored, unmerged.
    statsDays: await one(
      "SELECT sum(n) + sum(bots) FROM link_stats WHERE link_id = {link:UUID} AND level = 'day' AND kind = 's'",
      p,
    ),
    statsHourBrowsers: await one(
      "SELECT sum(n) FROM link_stats WHERE link_id = {link:UUID} AND level = 'hour' AND a = 'browser'",
      p,
    ),
    statsClicks: await one(
      "SELECT count() FROM link_stats WHERE link_id = {link:UUID} AND level = 'click' AND kind = 's'",
      p,
    ),
  };
}

/** Every count at `n`. */
const whole = (n: number) => ({
  raw: n,
  hourly: n,
  daily: n,
  browsersByDay: n,
  countriesAllTime: n,
  statsDays: n,
  statsHourBrowsers: n,
  statsClicks: n,
});

/** The state a consumer killed after the raw part of `rows`' insert and before its rollup parts leaves. */
async function interruptedInsert(rows: ClickRow[], completion: Completion): Promise<void> {
  for (const view of VIEWS_ON_CLICKS) await ch.command(`DETACH TABLE ${view}`);
  try {
    await writeClicks(ch, [rows], completion);
  } finally {
    for (const view of VIEWS_ON_CLICKS) await ch.command(`ATTACH TABLE ${view}`);
  }
  // The insert never returned, so the writer never recorded the message as complete.
  await ch.command("DELETE FROM click_messages WHERE 1");
}

describe.each(["repeat", "checked"] as const)("completed by %s", (completion) => {
  it("completes the rollups of a redelivered message whose insert was interrupted, and counts each click once", async () => {
    const link = randomUUID();
    const account = randomUUID();
    const m = clickRows(link, account, 19);
    await interruptedInsert(m, completion);
    expect(await counts(link)).toMatchObject({ raw: 19, hourly: 0, daily: 0 });

    // The redelivery: the same message, with a copy of two of its clicks in another message after it
    // (a publisher retry), and a message of new clicks.
    const retry = [m[3]!, m[4]!];
    const fresh = clickRows(link, account, 5);
    const result = await writeClicks(ch, [m, retry, fresh], completion);
    expect(result.completed).toHaveLength(19);
    expect(result.inserted).toHaveLength(5);
    expect(result.duplicates).toBe(2);
    const all = whole(24);
    expect(await counts(link)).toEqual(all);

    // Delivered once more (its insert completed this time): nothing is written again.
    const again = await writeClicks(ch, [m, fresh], completion);
    expect(again).toMatchObject({ inserted: [], completed: [], duplicates: 24 });
    expect(await counts(link)).toEqual(all);
  });

  it("leaves out a click another message stored, even when it comes in a message whose insert was interrupted", async () => {
    const link = randomUUID();
    const account = randomUUID();
    const first = clickRows(link, account, 6);
    await writeClicks(ch, [first], completion);
    // A later message repeats two of those clicks (a journal replay) beside four new ones, and is
    // interrupted after its raw part: only its four clicks are its own.
    const replay = [first[0]!, ...clickRows(link, account, 4), first[1]!];
    await interruptedInsert(replay, completion);
    expect(await counts(link)).toMatchObject({ raw: 10, hourly: 6 });

    const result = await writeClicks(ch, [replay], completion);
    expect(result.completed).toHaveLength(4);
    expect(result.duplicates).toBe(2);
    expect(await counts(link)).toEqual(whole(10));
  });

  it("completes an interrupted block when its clicks come back cut differently (decision 0049)", async () => {
    const link = randomUUID();
    const account = randomUUID();
    // A batch of two messages was one block (a Redis batch); its insert was interrupted after the raw part.
    const a = clickRows(link, account, 7);
    const b = clickRows(link, account, 5);
    await interruptedInsert([...a, ...b], completion);
    expect(await counts(link)).toMatchObject({ raw: 12, hourly: 0 });

    // Redelivered in another cut: the first message alone, then the second with new clicks. Neither
    // block has the interrupted block's token, so the first write completes that block from its raw
    // rows (all 12, also those of the second message), and no click is counted twice.
    const fresh = clickRows(link, account, 3);
    const first = await writeClicks(ch, [a], completion);
    expect(first).toMatchObject({ inserted: [], completed: [], duplicates: 7 });
    const all12 = whole(12);
    expect(await counts(link)).toEqual(all12);
    const second = await writeClicks(ch, [[...b, ...fresh]], completion);
    expect(second.inserted).toHaveLength(3);
    expect(second.duplicates).toBe(5);
    expect(await counts(link)).toEqual(whole(15));
  });
});
