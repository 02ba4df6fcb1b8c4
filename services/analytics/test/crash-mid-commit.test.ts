// Embedded chDB killed in the middle of an insert's commit (decision 0049). ClickHouse commits a
// block into a table in two steps: it records the block in the table's deduplication log, then
// renames the written part into place. A process killed between the two leaves the record without
// the part; the CI run of 2026-11-28 21:16 UTC lost 150 clicks from `link_dim_total` that way
// (consumer-restart.test.ts). That state is made exactly here: an insert that completed, then, with
// the engine closed, one rollup's part deleted from disk and the message's completion record gone,
// as a process killed at that point leaves them.
import { randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClickHouse, type KurzClickHouse, MIGRATIONS_DIR, migrate } from "@kurz/clickhouse";
import { CHDB_DATABASE, type MigratedChdb, migratedChdb } from "@kurz/testing/migrated-chdb";
import { afterEach, expect, it } from "vitest";
import type { ClickRow } from "../src/ingest/click-rows.ts";
import { type Completion, ROLLUP_TABLES, writeClicks } from "../src/ingest/click-writer.ts";
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

/**
 * Writes `m` as `first` writes, then leaves the state of a process killed between recording
 * `table`'s block and committing its part: that part gone, the message not recorded complete.
 */
async function killedMidCommit(m: ClickRow[], first: Completion, table: string): Promise<KurzClickHouse> {
  let db = await open();
  // Killed while committing the raw part, the insert never reached the views.
  if (table === "clicks") await db.command("DETACH TABLE click_feed_mv");
  await writeClicks(db, [m], first);
  if (table === "clicks") await db.command("ATTACH TABLE click_feed_mv");
  const parts = await db.query<{ path: string }>(
    "SELECT path FROM system.parts WHERE database = currentDatabase() AND table = {table:String} AND active",
    { table },
  );
  expect(parts).toHaveLength(1);
  await db.command("DELETE FROM click_messages WHERE 1");
  await db.close();
  rmSync(parts[0]!.path, { recursive: true });
  db = await open();
  return db;
}

async function counts(db: KurzClickHouse, link: string) {
  const one = async (sql: string) =>
    Number(Object.values((await db.query<Record<string, number>>(sql, { link }))[0]!)[0]);
  const of = "link_id = {link:UUID}";
  return {
    raw: await one(`SELECT uniqExact(click_id) FROM clicks WHERE ${of}`),
    hourly: await one(`SELECT sum(clicks) FROM link_hourly WHERE ${of}`),
    daily: await one(`SELECT sum(clicks) FROM link_daily WHERE ${of}`),
    visitors: await one(`SELECT uniqExactMerge(visitors) FROM link_visitors_daily WHERE ${of}`),
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
  statsDays: n,
  statsClicks: n,
  countriesAllTime: n,
});

it("ClickHouse drops a block recorded in its deduplication log whose part was never committed: repeating it leaves the rollup short (why chDB rebuilds)", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  const db = await killedMidCommit(m, "repeat", "link_dim_total");
  const result = await writeClicks(db, [m], "repeat");
  expect(result.completed).toHaveLength(30);
  // Every other table has the block; link_dim_total has neither it nor a way to take it again.
  expect(await counts(db, link)).toEqual({ ...whole(30), countriesAllTime: 0 });
});

it("rebuilds the rollups of a redelivered message from its raw clicks, whatever part of them was committed", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  // Written with tokens (as before decision 0049, or by a server's consumer): the stale record is there.
  const db = await killedMidCommit(m, "repeat", "link_dim_total");
  const other = randomUUID();
  await writeClicks(db, [message(other, 4)], "rebuild");
  const fresh = message(link, 5);
  const result = await writeClicks(db, [m, fresh], "rebuild");
  expect(result.completed).toHaveLength(30);
  expect(result.inserted).toHaveLength(5);
  expect(await counts(db, link)).toEqual(whole(35));
  // Another link's rollups are left as they were.
  expect(await counts(db, other)).toEqual(whole(4));
  // Delivered again: recorded complete, nothing written, nothing rebuilt.
  expect(await writeClicks(db, [m, fresh], "rebuild")).toMatchObject({
    inserted: [],
    completed: [],
    duplicates: 35,
  });
  expect(await counts(db, link)).toEqual(whole(35));
});

it("inserts without deduplication in chDB, so a block is never taken for a copy of one that was not stored", async () => {
  const link = randomUUID();
  const m = message(link, 30);
  // Killed while committing the raw part, the first of an insert's: nothing of the message is
  // stored, and its redelivery is a new message to the writer.
  const db = await killedMidCommit(m, "repeat", "clicks");
  expect(await counts(db, link)).toEqual(whole(0));
  const result = await writeClicks(db, [m], "rebuild");
  expect(result.inserted).toHaveLength(30);
  expect(await counts(db, link)).toEqual(whole(30));
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

it("migration 0010 on a data directory with clicks: the rollups go on counting each click once", async () => {
  const before = mkdtempSync(join(tmpdir(), "kurz-0010-"));
  try {
    for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{4}_.*\.sql$/.test(f) && f < "0010"))
      copyFileSync(join(MIGRATIONS_DIR, f), join(before, f));
    ch = await createClickHouse({ path: ":memory:", database: "upgrade_0010" });
    await migrate(ch, before);
    const link = randomUUID();
    await writeClicks(ch, [message(link, 12)], "repeat");
    expect((await migrate(ch)).applied).toEqual(["0010_click_feed.sql"]);
    await writeClicks(ch, [message(link, 7)]);
    expect(await counts(ch, link)).toEqual(whole(19));
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
});
