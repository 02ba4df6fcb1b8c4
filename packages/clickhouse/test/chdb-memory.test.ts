import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse } from "../src/index.ts";

const database = `t_${randomUUID().replaceAll("-", "")}`;
let ch: KurzClickHouse;

beforeAll(async () => {
  ch = await createClickHouse({ path: ":memory:", database });
});

afterAll(async () => {
  await ch?.command(`DROP DATABASE IF EXISTS ${database}`);
  await ch?.close();
});

describe("createClickHouse on embedded chDB (:memory:)", () => {
  it("creates the database and makes it the current one", async () => {
    expect(ch.kind).toBe("chdb");
    expect(ch.database).toBe(database);
    expect(await ch.query("SELECT currentDatabase() AS db")).toEqual([{ db: database }]);
  });

  it("pins the settings that differ between chDB and a server", async () => {
    const rows = await ch.query<{ name: string; value: string }>(
      "SELECT name, value FROM system.settings WHERE name IN {names:Array(String)} ORDER BY name",
      {
        names: [
          "async_insert",
          "date_time_input_format",
          "input_format_skip_unknown_fields",
          "mutations_sync",
          "output_format_json_quote_64bit_integers",
          "session_timezone",
        ],
      },
    );
    expect(Object.fromEntries(rows.map((r) => [r.name, r.value]))).toEqual({
      async_insert: "0",
      date_time_input_format: "best_effort",
      input_format_skip_unknown_fields: "0",
      mutations_sync: "2",
      output_format_json_quote_64bit_integers: "0",
      session_timezone: "UTC",
    });
  });

  it("reads parts in the query's own thread, on queries and on streamed reads alike", async () => {
    const sql = "SELECT getSetting('local_filesystem_read_method') AS method";
    expect(await ch.query(sql)).toEqual([{ method: "pread" }]);
    const streamed: unknown[] = [];
    for await (const row of ch.queryRows(sql)) streamed.push(row);
    expect(streamed).toEqual([{ method: "pread" }]);
  });

  it("binds {name:Type} parameters, including awkward strings, arrays and Dates with milliseconds", async () => {
    const id = randomUUID();
    const [row] = await ch.query(
      "SELECT {id:UUID} AS id, {s:String} AS s, {tags:Array(String)} AS tags, {at:DateTime64(3, 'UTC')} AS at, " +
        "{day:DateTime('UTC')} AS day, {n:UInt32} AS n",
      {
        id,
        s: 'it\'s a "quote"; a \\ backslash\tand\nnewline',
        tags: ["a", "b'c"],
        at: new Date("2026-11-21T06:12:00.123Z"),
        day: new Date("2026-11-21T00:00:00Z"),
        n: 42,
      },
    );
    expect(row).toEqual({
      id,
      s: 'it\'s a "quote"; a \\ backslash\tand\nnewline',
      tags: ["a", "b'c"],
      at: "2026-11-21 06:12:00.123",
      day: "2026-11-21 00:00:00",
      n: 42,
    });
  });

  it("streams rows with the same parameter values as a bound query, awkward strings included", async () => {
    const params = {
      id: randomUUID(),
      s: "it's a \"quote\"; a \\ backslash\tand\nnewline, \\' and {x:String}",
      tags: ["a", "b'c", "d\\"],
      ids: [randomUUID(), randomUUID()],
      at: new Date("2026-11-21T06:12:00.123Z"),
      day: "2026-11-21",
      n: 42,
    };
    const sql =
      "SELECT {id:UUID} AS id, {s:String} AS s, {tags:Array(String)} AS tags, {ids:Array(UUID)} AS ids, " +
      "{at:DateTime64(3, 'UTC')} AS at, {day:Date} AS day, {n:UInt32} AS n";
    const streamed = [];
    for await (const row of ch.queryRows(sql, params)) streamed.push(row);
    expect(streamed).toEqual(await ch.query(sql, params));
    expect(streamed[0]).toMatchObject({ s: params.s, tags: params.tags, at: "2026-11-21 06:12:00.123" });
  });

  it("refuses to stream a query whose placeholder has no value", async () => {
    const rows = ch.queryRows("SELECT {missing:String} AS s", {});
    await expect(rows.next()).rejects.toThrow(/missing/);
  });

  it("streams a result of many blocks in order, and side by side with another stream", async () => {
    const sql = "SELECT number AS n FROM numbers({count:UInt64})";
    const count = 50_000;
    const read = async (stop = Number.POSITIVE_INFINITY) => {
      let next = 0;
      for await (const row of ch.queryRows<{ n: number }>(sql, { count })) {
        expect(row.n).toBe(next++);
        if (next === stop) break;
      }
      return next;
    };
    expect(await Promise.all([read(), read(), read(10)])).toEqual([count, count, 10]);
    // A stream abandoned early gave its session back in a usable state.
    expect(await read()).toBe(count);
  });

  it("reports a failing streamed query as a rejection", async () => {
    const rows = ch.queryRows("SELECT * FROM no_such_table_here");
    await expect(rows.next()).rejects.toThrow(/no_such_table_here/);
  });

  it("inserts JSONEachRow rows with ISO timestamps and returns 64-bit integers as numbers", async () => {
    await ch.command(
      "CREATE TABLE events (id UInt64, at DateTime64(3, 'UTC'), note Nullable(String)) ENGINE = MergeTree ORDER BY id",
    );
    await ch.insert("events", [
      { id: 1, at: "2026-11-21T06:12:00.123Z", note: null },
      { id: 2, at: "2026-11-21 07:00:00", note: "x" },
    ]);
    await ch.insert("events", []);
    expect(await ch.query("SELECT id, at, note FROM events ORDER BY id")).toEqual([
      { id: 1, at: "2026-11-21 06:12:00.123", note: null },
      { id: 2, at: "2026-11-21 07:00:00.000", note: "x" },
    ]);
    expect(await ch.query("SELECT count() AS n FROM events")).toEqual([{ n: 2 }]);
  });

  it("rejects a row with a column the table does not have", async () => {
    await ch.command("CREATE TABLE strict_rows (id UInt8) ENGINE = MergeTree ORDER BY id");
    await expect(ch.insert("strict_rows", [{ id: 1, idd: 2 }])).rejects.toThrow(/Unknown field/);
  });

  it("applies mutations before the command returns", async () => {
    await ch.command("CREATE TABLE mutable (id UInt8, v String) ENGINE = MergeTree ORDER BY id");
    await ch.insert("mutable", [
      { id: 1, v: "a" },
      { id: 2, v: "b" },
    ]);
    await ch.command("ALTER TABLE mutable UPDATE v = {v:String} WHERE id = {id:UInt8}", { v: "z", id: 1 });
    await ch.command("ALTER TABLE mutable DELETE WHERE id = 2");
    expect(await ch.query("SELECT id, v FROM mutable ORDER BY id")).toEqual([{ id: 1, v: "z" }]);
  });

  it("pings while open", async () => {
    await expect(ch.ping()).resolves.toBeUndefined();
  });

  it("refuses a database name that is not a plain identifier", async () => {
    await expect(createClickHouse({ path: ":memory:", database: "kurz; DROP" })).rejects.toThrow(
      /Invalid ClickHouse database name/,
    );
  });
});

describe("a closed chDB client", () => {
  it("fails ping after close", async () => {
    const other = await createClickHouse({ path: ":memory:", database: `${database}_closed` });
    await other.command(`DROP DATABASE ${database}_closed`);
    await other.close();
    await expect(other.ping()).rejects.toThrow(/closed/);
  });
});
