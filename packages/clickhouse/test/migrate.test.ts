import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClickHouse, type KurzClickHouse, migrate } from "../src/index.ts";

const prefix = `t_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
const tmp = mkdtempSync(join(tmpdir(), "kurz-ch-migrations-"));
const opened: KurzClickHouse[] = [];

/** A fresh database per test, so each run of migrate starts from nothing. */
async function freshDatabase(name: string): Promise<KurzClickHouse> {
  const ch = await createClickHouse({ path: ":memory:", database: `${prefix}_${name}` });
  opened.push(ch);
  return ch;
}

/** Writes `files` into a fresh directory named `name` and returns its path. */
function migrationsDir(name: string, files: Record<string, string>): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  for (const [file, sql] of Object.entries(files)) writeFileSync(join(dir, file), sql);
  return dir;
}

afterAll(async () => {
  for (const ch of opened) {
    await ch.command(`DROP DATABASE IF EXISTS ${ch.database}`);
    await ch.close();
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe("migrate with the package's migrations", () => {
  it("creates clicks, links, the rollups and their views, records each, and applies nothing the second time", async () => {
    const ch = await freshDatabase("real");
    expect(await migrate(ch)).toEqual({
      applied: [
        "0011_baseline.sql",
        "0012_click_destination.sql",
        "0013_link_stats_hours.sql",
        "0014_compact_parts.sql",
        "0015_merge_selector_base.sql",
      ],
      // A view that writes into a table another view reads comes after that one (consumersFirst).
      views: [
        "link_daily_from_hourly_mv",
        "link_dim_total_from_clicks_mv",
        "link_hourly_mv",
        "link_stats_click_mv",
        "link_stats_day_mv",
        "link_stats_hour_level_mv",
        "link_stats_hour_mv",
        "link_stats_rows_mv",
        "link_visitors_daily_from_hourly_mv",
        "link_visitors_hourly_mv",
        "click_feed_mv",
      ],
    });
    expect(await migrate(ch)).toEqual({ applied: [], views: [] });

    const tables = await ch.query<{ name: string; engine: string; sorting_key: string }>(
      "SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() ORDER BY name",
    );
    expect(tables).toEqual([
      { name: "campaign_members", engine: "ReplacingMergeTree", sorting_key: "campaign_id" },
      // Clicks feed the rollups through a Null table, which a rebuild feeds alone (decision 0049).
      { name: "click_feed", engine: "Null", sorting_key: "" },
      { name: "click_feed_mv", engine: "MaterializedView", sorting_key: "" },
      // The messages whose click insert completed (decision 0049).
      { name: "click_messages", engine: "ReplacingMergeTree", sorting_key: "token" },
      { name: "clicks", engine: "ReplacingMergeTree", sorting_key: "link_id, toDate(ts), click_id" },
      { name: "link_daily", engine: "SummingMergeTree", sorting_key: "account_id, link_id, day" },
      // The daily rollups are fed from the hourly ones, which clicks feed.
      { name: "link_daily_from_hourly_mv", engine: "MaterializedView", sorting_key: "" },
      // The dimension rollups by hour and by day are link_stats' rows (decision 0048); the all-time
      // one is fed from the hour rows of each insert (link_stats_hours).
      { name: "link_dim_total", engine: "SummingMergeTree", sorting_key: "link_id, dim, value, country" },
      { name: "link_dim_total_from_clicks_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_hourly", engine: "SummingMergeTree", sorting_key: "account_id, link_id, hour" },
      { name: "link_hourly_mv", engine: "MaterializedView", sorting_key: "" },
      // A link's periods in one read (decision 0048), fed through a Null table.
      {
        name: "link_stats",
        engine: "AggregatingMergeTree",
        sorting_key: "link_id, level, kind, t, click_id, a, b, c",
      },
      { name: "link_stats_click_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_stats_day_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_stats_hour_level_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_stats_hour_mv", engine: "MaterializedView", sorting_key: "" },
      // Each insert's hour rows, summed once for the hour and day levels and the all-time breakdown.
      { name: "link_stats_hours", engine: "Null", sorting_key: "" },
      { name: "link_stats_rows", engine: "Null", sorting_key: "" },
      { name: "link_stats_rows_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_visitors_daily", engine: "AggregatingMergeTree", sorting_key: "link_id, day" },
      { name: "link_visitors_daily_from_hourly_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "link_visitors_hourly", engine: "AggregatingMergeTree", sorting_key: "link_id, hour" },
      { name: "link_visitors_hourly_mv", engine: "MaterializedView", sorting_key: "" },
      { name: "links", engine: "ReplacingMergeTree", sorting_key: "link_id" },
      { name: "schema_definitions", engine: "ReplacingMergeTree", sorting_key: "name" },
      { name: "schema_migrations", engine: "ReplacingMergeTree", sorting_key: "version" },
    ]);
    const columns = await ch.query<{ name: string; type: string }>(
      "SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = 'clicks' ORDER BY position",
    );
    expect(columns).toEqual([
      { name: "click_id", type: "UUID" },
      { name: "link_id", type: "UUID" },
      { name: "account_id", type: "UUID" },
      { name: "short_code", type: "String" },
      { name: "ts", type: "DateTime64(3, 'UTC')" },
      { name: "referrer", type: "Nullable(String)" },
      { name: "country", type: "LowCardinality(String)" },
      { name: "city", type: "String" },
      { name: "device_type", type: "LowCardinality(String)" },
      { name: "browser", type: "LowCardinality(String)" },
      { name: "os", type: "LowCardinality(String)" },
      { name: "is_bot", type: "UInt8" },
      { name: "visitor_hash", type: "UInt64" },
      { name: "host", type: "String" },
      { name: "destination", type: "LowCardinality(String)" },
      { name: "message_token", type: "String" },
    ]);
    const recorded = await ch.query(
      "SELECT version, name, length(checksum) AS len FROM schema_migrations FINAL ORDER BY version",
    );
    expect(recorded).toEqual([
      { version: 11, name: "baseline", len: 64 },
      { version: 12, name: "click_destination", len: 64 },
      { version: 13, name: "link_stats_hours", len: 64 },
      { version: 14, name: "compact_parts", len: 64 },
      { version: 15, name: "merge_selector_base", len: 64 },
    ]);
    // The all-time totals per account and link, inside link_daily's parts.
    const projections = await ch.query(
      "SELECT table, name FROM system.projections WHERE database = currentDatabase() ORDER BY table, name",
    );
    expect(projections).toEqual([{ table: "link_daily", name: "link_totals" }]);
    // The merge settings of the two tables whose merges rewrite most rows (0014, 0015).
    const merges = await ch.query<{ name: string; settings: string }>(
      `SELECT name, extract(engine_full, 'SETTINGS (.*)$') AS settings FROM system.tables
       WHERE database = currentDatabase() AND name IN ('clicks', 'link_stats') ORDER BY name`,
    );
    expect(merges).toEqual([
      { name: "clicks", settings: expect.stringContaining("min_bytes_for_wide_part = 1073741824") },
      { name: "link_stats", settings: expect.stringContaining("merge_selector_base = 10") },
    ]);
    expect(merges[0]!.settings).not.toContain("merge_selector_base");
    expect(merges[1]!.settings).toContain("min_bytes_for_wide_part = 1073741824");
  });
});

describe("migrate with a migrations directory", () => {
  it("applies files in version order, splitting statements only at real semicolons", async () => {
    const ch = await freshDatabase("order");
    const dir = migrationsDir("order", {
      "0002_second.sql": "INSERT INTO notes VALUES (2, 'two; still one value');\n",
      "0001_first.sql": [
        "-- why: a table whose values contain ; to prove the splitter",
        "CREATE TABLE IF NOT EXISTS notes (id UInt8, body String) ENGINE = MergeTree ORDER BY id;",
        "/* a block; comment */",
        "INSERT INTO notes VALUES (1, 'it''s; one'); # a hash; comment",
        "",
      ].join("\n"),
      "README.md": "not a migration",
    });
    expect(await migrate(ch, { migrations: dir })).toEqual({
      applied: ["0001_first.sql", "0002_second.sql"],
      views: [],
    });
    expect(await ch.query("SELECT id, body FROM notes ORDER BY id")).toEqual([
      { id: 1, body: "it's; one" },
      { id: 2, body: "two; still one value" },
    ]);

    writeFileSync(join(dir, "0003_third.sql"), "INSERT INTO notes VALUES (3, 'three')");
    expect(await migrate(ch, { migrations: dir })).toEqual({ applied: ["0003_third.sql"], views: [] });
    expect(await migrate(ch, { migrations: dir })).toEqual({ applied: [], views: [] });
    expect(await ch.query("SELECT count() AS n FROM notes")).toEqual([{ n: 3 }]);
  });

  it("refuses to run when an applied file has changed, and applies nothing new", async () => {
    const ch = await freshDatabase("changed");
    const dir = migrationsDir("changed", {
      "0001_first.sql": "CREATE TABLE IF NOT EXISTS a (id UInt8) ENGINE = MergeTree ORDER BY id",
    });
    await migrate(ch, { migrations: dir });
    writeFileSync(
      join(dir, "0001_first.sql"),
      "CREATE TABLE IF NOT EXISTS a (id UInt16) ENGINE = MergeTree ORDER BY id",
    );
    writeFileSync(join(dir, "0002_next.sql"), "CREATE TABLE b (id UInt8) ENGINE = MergeTree ORDER BY id");

    await expect(migrate(ch, { migrations: dir })).rejects.toThrow(/0001_first\.sql/);
    expect(
      await ch.query("SELECT name FROM system.tables WHERE database = currentDatabase() AND name = 'b'"),
    ).toEqual([]);
  });

  it("does not count line-ending changes as an edit", async () => {
    const ch = await freshDatabase("crlf");
    const dir = migrationsDir("crlf", { "0001_first.sql": "SELECT 1;\nSELECT 2;\n" });
    await migrate(ch, { migrations: dir });
    writeFileSync(join(dir, "0001_first.sql"), "SELECT 1;\r\nSELECT 2;\r\n");
    expect(await migrate(ch, { migrations: dir })).toEqual({ applied: [], views: [] });
  });

  it("records nothing for a file that fails, so it runs again once fixed", async () => {
    const ch = await freshDatabase("failing");
    const dir = migrationsDir("failing", {
      "0001_broken.sql":
        "CREATE TABLE IF NOT EXISTS c (id UInt8) ENGINE = MergeTree ORDER BY id;\nSELECT nope_fn();",
    });
    await expect(migrate(ch, { migrations: dir })).rejects.toThrow(/0001_broken\.sql failed/);
    expect(await ch.query("SELECT count() AS n FROM schema_migrations")).toEqual([{ n: 0 }]);

    writeFileSync(
      join(dir, "0001_broken.sql"),
      "CREATE TABLE IF NOT EXISTS c (id UInt8) ENGINE = MergeTree ORDER BY id;",
    );
    expect(await migrate(ch, { migrations: dir })).toEqual({ applied: ["0001_broken.sql"], views: [] });
  });

  it("rejects badly named files and duplicate versions before running anything", async () => {
    const ch = await freshDatabase("names");
    const badName = migrationsDir("bad-name", { "1_first.sql": "SELECT 1" });
    await expect(migrate(ch, { migrations: badName })).rejects.toThrow(
      /1_first\.sql is not named NNNN_name\.sql/,
    );
    const duplicate = migrationsDir("duplicate", { "0001_a.sql": "SELECT 1", "0001_b.sql": "SELECT 2" });
    await expect(migrate(ch, { migrations: duplicate })).rejects.toThrow(/share version 1/);
  });
});
