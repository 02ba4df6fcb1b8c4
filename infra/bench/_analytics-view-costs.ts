// What each materialized view costs a click: `node --import tsx infra/bench/_analytics-view-costs.ts
// [rounds]` (default 7). The insert profile (_analytics-ingest-profile.ts) sees the insert into
// `clicks` and all its views as one stage, because ClickHouse runs them inside that insert and chDB
// keeps no query_views_log. Here each view's own SELECT, read from the migrated schema, runs alone as
// an INSERT into its target over one block of 20,000 synthetic clicks (the consumer's block on Redis
// Streams) held in Memory tables: the views that read `clicks` over the block, those that read the
// exploded rows (link_stats_rows) over that block's explosion, and link_daily's over its hourly rows.
// Median of the rounds after the first, in µs per click; run under `flock /tmp/bench.lock`.
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { decodeClickBatch } from "@kurz/contracts";
import { loadAnalyticsConfig } from "../../services/analytics/src/config.ts";
import { GeoIp } from "../../services/analytics/src/enrich/geoip.ts";
import { VisitorHasher } from "../../services/analytics/src/enrich/visitor-hash.ts";
import { type ClickRow, toClickRow } from "../../services/analytics/src/ingest/click-rows.ts";
import { writeClicks } from "../../services/analytics/src/ingest/exactly-once-insert.ts";
import { syntheticClick, syntheticLinks } from "./_synthetic-clicks.ts";

const BLOCK = 20_000;
const rounds = Number(process.argv[2] ?? 7);
const links = syntheticLinks();
const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new VisitorHasher("view-costs");
const block = (offset: number): ClickRow[] =>
  Array.from({ length: BLOCK }, (_, i) =>
    toClickRow(decodeClickBatch({ v: 1, clicks: [syntheticClick(links, offset + i)] })![0]!, {
      geo,
      visitors,
    }),
  );

const ch = await createClickHouse({ path: ":memory:", database: "view_costs" });
await migrate(ch);
await writeClicks(ch, [block(0)]); // the real path once, so every table has data and parts

const views = (
  await ch.query<{ name: string; sel: string; ddl: string }>(
    "SELECT name, as_select AS sel, create_table_query AS ddl FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView' ORDER BY name",
  )
).map((v) => ({
  name: v.name,
  sel: v.sel,
  source: /FROM (?:\w+\.)?(\w+)/.exec(v.sel)![1]!,
  target: /\bTO (?:\w+\.)?(\w+)/.exec(v.ddl)![1]!,
}));
// Every table a view reads gets a Memory stand-in, filled per round by the views that write to it
// (clicks' by the block itself), so that each view reads exactly what it would read in the insert.
const sources = [...new Set(views.map((v) => v.source))];
const standIn = (table: string) => `${table}_standin`;
for (const table of sources) await ch.command(`CREATE TABLE ${standIn(table)} AS ${table} ENGINE = Memory`);
const targetOf = (table: string) => (sources.includes(table) ? standIn(table) : table);
await ch.command(
  "CREATE TABLE raw_copy AS clicks ENGINE = ReplacingMergeTree PARTITION BY toYYYYMM(ts) PRIMARY KEY (link_id, toDate(ts)) ORDER BY (link_id, toDate(ts), click_id)",
);
// Views in the order the insert runs them: those reading clicks, then those reading their targets.
const order: typeof views = [];
for (let ready = ["clicks"]; ready.length > 0; ) {
  const next = views.filter((v) => ready.includes(v.source));
  order.push(...next);
  ready = [...new Set(next.map((v) => v.target))].filter((t) => sources.includes(t));
}

const times = new Map<string, number[]>();
const timed = async (what: string, sql: string) => {
  const started = performance.now();
  await ch.command(sql);
  times.set(what, [...(times.get(what) ?? []), performance.now() - started]);
};
const COLUMNS =
  "click_id, link_id, account_id, short_code, ts, referrer, country, city, device_type, browser, os, is_bot, visitor_hash, host";
for (let r = 1; r <= rounds; r++) {
  for (const table of sources) await ch.command(`TRUNCATE TABLE ${standIn(table)}`);
  await ch.raw.insert({
    table: `${standIn("clicks")} (${COLUMNS})`,
    values: block(r * BLOCK).map((x) => COLUMNS.split(", ").map((c) => x[c as keyof ClickRow])),
    format: "JSONCompactEachRow",
  });
  await timed(
    "the raw insert alone (a copy of `clicks`, no views)",
    `INSERT INTO raw_copy SELECT * FROM ${standIn("clicks")} SETTINGS insert_deduplicate = 0`,
  );
  for (const v of order) {
    const sql = v.sel
      .replace(new RegExp(`FROM (\\w+\\.)?${v.source}\\b`, "g"), `FROM ${standIn(v.source)}`)
      .replace(new RegExp(`\\b${v.source}\\.`, "g"), `${standIn(v.source)}.`);
    await timed(
      `${v.name} (reads ${v.source})`,
      `INSERT INTO ${targetOf(v.target)} ${sql} SETTINGS insert_deduplicate = 0`,
    );
  }
}
console.log("| step | µs per click |\n|---|---|");
let all = 0;
for (const [what, list] of times) {
  const sorted = list.slice(1).sort((a, b) => a - b);
  const median = (sorted[Math.floor(sorted.length / 2)]! / BLOCK) * 1000;
  if (!what.startsWith("the raw")) all += median;
  console.log(`| ${what} | ${median.toFixed(1)} |`);
}
console.log(`| every view | ${all.toFixed(1)} |`);
await ch.close();
