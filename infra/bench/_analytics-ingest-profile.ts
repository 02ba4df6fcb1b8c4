// Where a click's ingest time goes, stage by stage, without the bus: `node --import tsx
// infra/bench/_analytics-ingest-profile.ts [clicks]` (default 200000; the same traffic as `./kurz bench
// analytics`: 1,000 links, messages of 200 clicks, handler batches of 100 messages). Stages: JSON parse
// of the messages (the bus codec's work), validation (decodeClickBatch, zod), enrichment (ua-parser +
// isbot, DB-IP look-up, visitor hash; timed one by one on the side, then as toClickRow does them),
// and writeClicks split into its look-ups (deleted links, already-stored click ids) and the insert,
// which includes every materialized view. Times are wall-clock µs per click on embedded chDB; run
// under `flock /tmp/bench.lock` and note the load average.
// `--no-views` drops every materialized view after migrating, so the insert stage is the raw table
// alone; run it alternately with the default and the difference is what the views cost per click.
// Blocks are what the consumer hands writeClicks (services/analytics/src/ingest/clicks.ts): by default
// one block per handler batch, as on Redis Streams (`./kurz bench analytics`); `--run-messages N` cuts
// each batch into blocks of N messages, as Kafka runs do (100 at most); `--per-message` makes every
// message its own block, decision 0049's path (one insert per message).
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { decodeClickBatch } from "@kurz/contracts";
import { loadAnalyticsConfig } from "../../services/analytics/src/config.ts";
import { GeoIp } from "../../services/analytics/src/enrich/geoip.ts";
import { parseAgent } from "../../services/analytics/src/enrich/user-agent.ts";
import { VisitorHasher } from "../../services/analytics/src/enrich/visitor-hash.ts";
import { type ClickRow, toClickRow } from "../../services/analytics/src/ingest/click-rows.ts";
import { writeClicks } from "../../services/analytics/src/ingest/exactly-once-insert.ts";
import { syntheticClick, syntheticLinks } from "./_synthetic-clicks.ts";

const args = process.argv.slice(2);
const noViews = args.includes("--no-views");
const perMessage = args.includes("--per-message");
const runArg = args.indexOf("--run-messages");
const runMessages = perMessage ? 1 : runArg >= 0 ? Number(args[runArg + 1]) : 100;
const total = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== "--run-messages") ?? 200_000);
const links = syntheticLinks();
const messages: string[] = [];
let pending: unknown[] = [];
for (let i = 0; i < total; i++) {
  pending.push(syntheticClick(links, i));
  if (pending.length === 200) {
    messages.push(JSON.stringify({ v: 1, clicks: pending }));
    pending = [];
  }
}
if (pending.length > 0) messages.push(JSON.stringify({ v: 1, clicks: pending }));

const geo = new GeoIp(loadAnalyticsConfig({}).GEOIP_DB_PATH);
await geo.open();
const visitors = new VisitorHasher("profile");
const spent: Record<string, number> = {};
const timed = <T>(stage: string, fn: () => T): T => {
  const t = performance.now();
  const out = fn();
  spent[stage] = (spent[stage] ?? 0) + performance.now() - t;
  return out;
};
const timedAsync = async <T>(stage: string, fn: () => Promise<T>): Promise<T> => {
  const t = performance.now();
  const out = await fn();
  spent[stage] = (spent[stage] ?? 0) + performance.now() - t;
  return out;
};

const ch = await createClickHouse({ path: ":memory:", database: "ingest_profile" });
await migrate(ch);
if (noViews) {
  const views = await ch.query<{ name: string }>(
    "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine = 'MaterializedView'",
  );
  for (const { name } of views) await ch.command(`DROP VIEW \`${name}\``);
  console.log(`--no-views: dropped ${views.length} materialized views`);
}
// The writer's three round trips, told apart by their SQL.
const query = ch.query.bind(ch);
ch.query = (async (sql: string, params?: Record<string, unknown>) =>
  timedAsync(sql.includes("FROM links") ? "  look-up: deleted links" : "  look-up: stored click ids", () =>
    query(sql, params),
  )) as typeof ch.query;
const insert = ch.raw.insert.bind(ch.raw);
ch.raw.insert = ((params: Parameters<typeof insert>[0]) =>
  timedAsync(
    params.table.startsWith("click_messages")
      ? "  record completed blocks"
      : noViews
        ? "  insert (no views)"
        : "  insert + views",
    () => insert(params),
  )) as typeof ch.raw.insert;

const started = performance.now();
for (let b = 0; b < messages.length; b += 100) {
  const values = timed("parse (JSON)", () => messages.slice(b, b + 100).map((m) => JSON.parse(m) as unknown));
  const perMsg = timed("validate (zod)", () => values.map((v) => decodeClickBatch(v) ?? []));
  const events = perMsg.flat();
  // Side measurements of the enrichment's parts (not counted in the total).
  timed("(side) user agent", () => events.map((e) => parseAgent(e.user_agent)));
  timed("(side) DB-IP look-up", () => events.map((e) => geo.lookup(e.ip)));
  timed("(side) visitor hash", () => events.map((e) => visitors.hash(e.ts.slice(0, 10), e.ip, e.user_agent)));
  const blocks: ClickRow[][] = timed("enrich (toClickRow)", () => {
    const out: ClickRow[][] = [];
    for (let m = 0; m < perMsg.length; m += runMessages)
      out.push(
        perMsg.slice(m, m + runMessages).flatMap((list) => list.map((e) => toClickRow(e, { geo, visitors }))),
      );
    return out;
  });
  await timedAsync("writeClicks", () => writeClicks(ch, blocks));
}
const wall = performance.now() - started;
const side = Object.entries(spent)
  .filter(([k]) => k.startsWith("(side)"))
  .reduce((n, [, v]) => n + v, 0);
const counted = wall - side;
console.log(`blocks of ${runMessages} message(s) of 200 clicks, handler batches of 100 messages`);
console.log(`| stage | µs per click | share |\n|---|---|---|`);
for (const [stage, ms] of Object.entries(spent)) {
  const share = stage.startsWith("(side)") ? "" : `${((ms / counted) * 100).toFixed(0)} %`;
  console.log(`| ${stage} | ${((ms / total) * 1000).toFixed(1)} | ${share} |`);
}
console.log(
  `| total (without side measurements) | ${((counted / total) * 1000).toFixed(1)} | ${Math.round((total / counted) * 1000).toLocaleString("en-US")} clicks/s |`,
);
// Every click must be stored once, or the rate above would flatter a writer that dropped some.
const [stored] = await query<{ n: number }>("SELECT toUInt64(count()) AS n FROM clicks");
console.log(
  `stored ${Number(stored?.n ?? 0).toLocaleString("en-US")} of ${total.toLocaleString("en-US")} clicks`,
);
await ch.close();
