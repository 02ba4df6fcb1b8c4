// Embedded chDB killed in the middle of an insert's commit (decision 0049). ClickHouse commits a
// block into a table in two steps: it records the block in the table's deduplication log, then
// renames the written part into place. A process killed between the two leaves the record without
// the part, and clicks go missing from `link_dim_total` that way (consumer-restart.test.ts kills the
// process at random). That state is made exactly here: an insert that completed, then, with the
// engine closed, one rollup's part deleted from disk and the message's completion record gone, as a
// process killed at that point leaves them.
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { createClickHouse, type KurzClickHouse } from "@kurz/clickhouse";
import { CHDB_DATABASE, type MigratedChdb, migratedChdb } from "@kurz/testing/migrated-chdb";
import { afterEach, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { type Completion, writeClicks } from "../src/ingest/exactly-once-insert.ts";
import { ROLLUP_TABLES } from "../src/ingest/rollup-repair.ts";
import { clickRows } from "./click-rows-fixture.ts";

let copy: MigratedChdb | undefined;
let ch: KurzClickHouse | undefined;

afterEach(async () => {
  await ch?.close();
  ch = undefined;
  copy?.remove();
  copy = undefined;
});

async function open(): Promise<KurzClickHouse> {
  copy ??= await migratedChdb();
  ch = await createClickHouse({ path: copy.path, database: CHDB_DATABASE });
  return ch;
}

const message = (link: string, n: number) => clickRows(link, randomUUID(), n);

/** A table's part of one insert: in link_stats, of one `level` (each level's view writes on its own). */
interface Part {
  table: string;
  level?: string;
}

/**
 * Writes `m` as `first` writes, then leaves the state of a process killed between recording the
 * blocks of `parts` and committing them: those parts gone, the message not recorded complete.
 */
async function killedMidCommit(m: ClickRow[], first: Completion, parts: Part[]): Promise<KurzClickHouse> {
  return killedMidCommitOf(await open(), m, first, parts);
}

/** killedMidCommit on an open database, which it closes: returns the database opened again. */
async function killedMidCommitOf(
  opened: KurzClickHouse,
  m: ClickRow[],
  first: Completion,
  parts: Part[],
): Promise<KurzClickHouse> {
  let db = opened;
  // Killed in the raw part's commit, the first of an insert's: no view was fed.
  const raw = parts.some((p) => p.table === "clicks");
  if (raw) await db.command("DETACH TABLE click_feed_mv");
  await writeClicks(db, [m], first);
  if (raw) await db.command("ATTACH TABLE click_feed_mv");
  const paths: string[] = [];
  for (const { table, level } of parts) {
    const found = await db.query<{ path: string }>(
      `SELECT path FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active
         AND name IN (SELECT DISTINCT _part FROM ${table} WHERE link_id = {link:UUID} ${level ? "AND level = {level:String}" : ""})`,
      { table, link: m[0]!.link_id, level: level ?? "" },
    );
    expect(found).toHaveLength(1);
    paths.push(found[0]!.path);
  }
  await db.command("DELETE FROM click_messages WHERE 1");
  await db.close();
  for (const path of paths) rmSync(path, { recursive: true });
  db = await open();
  return db;
}

/** The one value of a query's one row, about `link`. */
async function value(db: KurzClickHouse, sql: string, link: string): Promise<number> {
  return Number(Object.values((await db.query<Record<string, number>>(sql, { link }))[0]!)[0]);
}

async function counts(db: KurzClickHouse, link: string) {
  const one = (sql: string) => value(db, sql, link);
  const of = "link_id = {link:UUID}";
  return {
    raw: await one(`SELECT uniqExact(click_id) FROM clicks WHERE ${of}`),
    hourly: await one(`SELECT sum(clicks) FROM link_hourly WHERE ${of}`),
    daily: await one(`SELECT sum(clicks) FROM link_daily WHERE ${of}`),
    visitors: await one(`SELECT uniqExactMerge(visitors) FROM link_visitors_daily WHERE ${of}`),
    visitorsHourly: await one(`SELECT uniqExactMerge(visitors) FROM link_visitors_hourly WHERE ${of}`),
    // Not the drift's hour of 2020 (below).
    statsHours: await one(
      `SELECT sum(n) FROM link_stats WHERE ${of} AND level = 'hour' AND kind = 's' AND t > '2021-01-01'`,
    ),
    statsDays: await one(`SELECT sum(n) FROM link_stats WHERE ${of} AND level = 'day' AND kind = 's'`),
    statsClicks: await one(`SELECT count() FROM link_stats WHERE ${of} AND level = 'click' AND kind = 's'`),
    countriesAllTime: await one(`SELECT sum(clicks) FROM link_dim_total WHERE ${of} AND dim = 'country'`),
  };
}

const whole = (n: number) => ({
  raw: n,
  hourly: n,
  daily: n,
  visitors: n,
  visitorsHourly: n,
  statsHours: n,
  statsDays: n,
  statsClicks: n,
  countriesAllTime: n,
});

it("ClickHouse drops a block recorded in its deduplication log whose part was never committed: repeating it leaves the rollup short (why chDB rebuilds)", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  const db = await killedMidCommit(m, "repeat", [{ table: "link_dim_total" }]);
  const result = await writeClicks(db, [m], "repeat");
  expect(result.completed).toHaveLength(30);
  // Every other table has the block; link_dim_total has neither it nor a way to take it again.
  expect(await counts(db, link)).toEqual({ ...whole(30), countriesAllTime: 0 });
});

/**
 * A link_stats row of `link` in an hour of 2020, which no click has: drift that only a rebuild of
 * the link's rollups from its raw clicks removes. It shows whether a completion rebuilt the link.
 */
async function drift(db: KurzClickHouse, link: string): Promise<void> {
  await db.command(
    `INSERT INTO link_stats (link_id, level, kind, t, click_id, a, b, c, n, bots, vs)
     VALUES ({link:UUID}, 'hour', 's', '2020-01-01 00:00:00', toUUID('00000000-0000-0000-0000-000000000000'),
             '', '', '', 5, 0, [])`,
    { link },
  );
}
/** A link's hour rows in link_stats, the drift's included. */
const statsHours = (db: KurzClickHouse, link: string) =>
  value(
    db,
    "SELECT sum(n) FROM link_stats WHERE link_id = {link:UUID} AND level = 'hour' AND kind = 's'",
    link,
  );

// One table's part lost, or a table's and the one fed from it (which of them commits first is
// ClickHouse's business): each check of linksWithShortRollups is the only one to see one of these.
it.each<{ lost: string; parts: Part[] }>([
  {
    lost: "link_hourly's and link_daily's parts",
    parts: [{ table: "link_hourly" }, { table: "link_daily" }],
  },
  { lost: "link_daily's part", parts: [{ table: "link_daily" }] },
  {
    lost: "both visitor rollups' parts",
    parts: [{ table: "link_visitors_hourly" }, { table: "link_visitors_daily" }],
  },
  { lost: "link_visitors_daily's part", parts: [{ table: "link_visitors_daily" }] },
  { lost: "link_dim_total's part", parts: [{ table: "link_dim_total" }] },
  { lost: "link_stats' click rows", parts: [{ table: "link_stats", level: "click" }] },
  {
    lost: "link_stats' hour and day rows",
    parts: [
      { table: "link_stats", level: "hour" },
      { table: "link_stats", level: "day" },
    ],
  },
  { lost: "link_stats' day rows", parts: [{ table: "link_stats", level: "day" }] },
])("checks the rollups of a repeated message and rebuilds the link when $lost went", async ({ parts }) => {
  const link = randomUUID();
  const m = message(link, 30);
  const db = await killedMidCommit(m, "repeat", parts);
  expect(await counts(db, link)).not.toEqual(whole(30));
  await drift(db, link);
  const other = randomUUID();
  await writeClicks(db, [message(other, 4)], "checked");
  await drift(db, other);
  const fresh = message(link, 5);
  const result = await writeClicks(db, [m, fresh], "checked");
  expect(result.completed).toHaveLength(30);
  expect(result.inserted).toHaveLength(5);
  expect(result.rebuiltLinks).toBe(1);
  expect(await counts(db, link)).toEqual(whole(35));
  // Rebuilt from its raw clicks: the drift is gone.
  expect(await statsHours(db, link)).toBe(35);
  // With each click's destination (the fixture's split arm, every third click of each message).
  const sent = [...m, ...fresh].filter((r) => r.destination !== "default").length;
  expect(sent).toBeGreaterThan(0);
  expect(
    await value(
      db,
      "SELECT sum(clicks) FROM link_dim_total WHERE link_id = {link:UUID} AND dim = 'destination'",
      link,
    ),
  ).toBe(sent);
  expect(
    await value(
      db,
      "SELECT sum(n) FROM link_stats WHERE link_id = {link:UUID} AND level = 'day' AND a = 'destination'",
      link,
    ),
  ).toBe(sent);
  // Another link's rollups are left as they were, drift included.
  expect(await counts(db, other)).toEqual(whole(4));
  expect(await statsHours(db, other)).toBe(4 + 5);
  // Delivered again: recorded complete, nothing written, nothing rebuilt.
  expect(await writeClicks(db, [m, fresh], "checked")).toMatchObject({
    inserted: [],
    completed: [],
    duplicates: 35,
  });
  expect(await counts(db, link)).toEqual(whole(35));
});

it.each<[Completion, ReturnType<typeof whole>]>([
  // The repeat alone: the views count the redelivered block, `clicks` drops it as a copy.
  ["repeat", { ...whole(30), raw: 0 }],
  ["checked", whole(30)],
])("a block whose raw part was cut after its record, redelivered (%s)", async (completion, after) => {
  const link = randomUUID();
  const m = message(link, 30);
  const db = await killedMidCommit(m, "repeat", [{ table: "clicks" }]);
  expect(await counts(db, link)).toEqual(whole(0));
  const result = await writeClicks(db, [m], completion);
  expect(result.inserted).toHaveLength(30);
  expect(await counts(db, link)).toEqual(after);
});

it("a block whose raw part was cut after its record, then cut again in the insert of what it lacked, is stored whole at its next delivery", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  const cut = await killedMidCommit(m, "repeat", [{ table: "clicks" }]);
  // Redelivered: dropped as a copy, so the rows `clicks` lacks go in under a token of their own,
  // and a kill in that raw part's commit leaves its record too. The process died there, before the
  // check that follows filled the rollups: they hold nothing of the link.
  const db = await killedMidCommitOf(cut, m, "checked", [{ table: "clicks" }]);
  for (const table of ROLLUP_TABLES)
    await db.command(`DELETE FROM ${table} WHERE link_id = {link:UUID}`, { link });
  expect(await counts(db, link)).toEqual(whole(0));
  const result = await writeClicks(db, [m], "checked");
  expect(result.inserted).toHaveLength(30);
  expect(await counts(db, link)).toEqual(whole(30));
});

it("completes an insert interrupted before its rollups by the repeat alone: the check finds nothing short", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  let db = await open();
  await drift(db, link);
  // Killed after the raw part, before any view: the usual interruption, no record left behind.
  await db.command("DETACH TABLE click_feed_mv");
  await writeClicks(db, [m], "checked");
  await db.command("ATTACH TABLE click_feed_mv");
  await db.command("DELETE FROM click_messages WHERE 1");
  await db.close();
  db = await open();
  expect(await counts(db, link)).toMatchObject({ raw: 30, hourly: 0 });
  const result = await writeClicks(db, [m], "checked");
  expect(result.completed).toHaveLength(30);
  expect(result.rebuiltLinks).toBe(0);
  expect(await counts(db, link)).toEqual(whole(30));
  // Not rebuilt: the drift outside the message's hours is still there.
  expect(await statsHours(db, link)).toBe(30 + 5);
});

it("rebuilds, and deletes a link's clicks from, every table the click views feed", async () => {
  const db = await open();
  const tables = await db.query<{
    name: string;
    engine: string;
    dependencies_table: string[];
    create_table_query: string;
  }>(
    "SELECT name, engine, dependencies_table, create_table_query FROM system.tables WHERE database = currentDatabase()",
  );
  const byName = new Map(tables.map((t) => [t.name, t]));
  // From clicks, through each view to the table it writes to, and on from there.
  const fed = new Set<string>();
  const next = ["clicks"];
  while (next.length > 0) {
    for (const view of byName.get(next.pop()!)?.dependencies_table ?? []) {
      const target = / TO [^.\s]+\.(\w+)/.exec(byName.get(view)?.create_table_query ?? "")?.[1];
      if (target && !fed.has(target)) {
        fed.add(target);
        next.push(target);
      }
    }
  }
  const stored = [...fed].filter((t) => byName.get(t)?.engine !== "Null");
  expect(stored.sort()).toEqual([...ROLLUP_TABLES].sort());
});
