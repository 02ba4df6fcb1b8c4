// `./kurz bench analytics`: the analytics pipeline on embedded ClickHouse (chDB, in this process).
//   - ingest: click batches already waiting on the bus (Redis Streams) → the real click consumer
//     (validation, enrichment, duplicate check, insert, materialized views) → ClickHouse; clicks/s
//     from subscribe until the last click is stored;
//   - queries: GET /api/v1/analytics/:link_id for a link with 1M clicks and GET
//     /api/v1/analytics/summary for an account with 10M clicks over 2,000 links, over HTTP against
//     the analytics app (seeded with infra/bench/_analytics-seed.ts), p50/p99 of sequential requests.
// Options: --ingest <clicks> (default 200000), --link-clicks, --account-clicks, --requests (default 200),
// --blocks (default 5: the times-of-day/dates ratio is also reported as the median over this many
// consecutive blocks of rounds, which one burst of load on a shared host cannot move alone).
// Run under `flock /tmp/bench.lock` on a shared machine.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createBus } from "@kurz/bus";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { type ClickBatch, clickPartitionKey, TOPICS } from "@kurz/contracts";
import { createLogger, forwardedHeaders } from "@kurz/service-kit";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createAnalyticsApp } from "../../services/analytics/src/app.ts";
import { loadAnalyticsConfig } from "../../services/analytics/src/config.ts";
import { GeoIp } from "../../services/analytics/src/enrich/geoip.ts";
import { VisitorHasher } from "../../services/analytics/src/enrich/visitor-hash.ts";
import { subscribeClicks } from "../../services/analytics/src/ingest/clicks.ts";
import type { LinkDirectory } from "../../services/analytics/src/management-links.ts";
import { seedAnalytics } from "./_analytics-seed.ts";
import { syntheticClick, syntheticLinks } from "./_synthetic-clicks.ts";

export const description =
  "analytics: ingest rate bus → ClickHouse, and query p50/p99 for a 1M-click link and a 10M-click account";

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const int = (n: number) => Math.round(n).toLocaleString("en-US");

async function ingest(total: number): Promise<{ rate: number; seconds: number; stored: number }> {
  const prefix = uniquePrefix("bench-an");
  const logger = createLogger("bench", "warn");
  const bus = createBus({ kind: "redis", clientId: "bench", prefix, redisUrl: testRedisUrl(), logger });
  const ch = await createClickHouse({ path: ":memory:", database: "bench_ingest" });
  try {
    await migrate(ch);
    const links = syntheticLinks();
    const byKey = new Map<string, ClickBatch["clicks"]>();
    const messages: { key: string; value: ClickBatch }[] = [];
    const flush = (key: string, clicks: ClickBatch["clicks"]) =>
      messages.push({ key, value: { v: 1, clicks } });
    for (let i = 0; i < total; i++) {
      const click = syntheticClick(links, i);
      const key = clickPartitionKey(click.link_id);
      const list = byKey.get(key) ?? [];
      list.push(click);
      if (list.length === 200) {
        flush(key, list);
        byKey.delete(key);
      } else byKey.set(key, list);
    }
    for (const [key, list] of byKey) flush(key, list);
    for (let i = 0; i < messages.length; i += 500)
      await bus.publish(TOPICS.clicks, messages.slice(i, i + 500));

    let stored = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const config = loadAnalyticsConfig({});
    const geo = new GeoIp(config.GEOIP_DB_PATH);
    await geo.open(); // opening the database is start-up cost, not ingest
    const started = performance.now();
    const sub = await subscribeClicks({
      bus,
      ch,
      logger,
      geo,
      visitors: new VisitorHasher("bench"),
      onInserted: (rows) => {
        stored += rows.length;
        if (stored >= total) done();
      },
    });
    await finished;
    const seconds = (performance.now() - started) / 1000;
    await sub.stop();
    const [row] = await ch.query<{ n: number }>(
      "SELECT toUInt64(sum(clicks) + sum(bot_clicks)) AS n FROM link_daily",
    );
    return { rate: total / seconds, seconds, stored: Number(row?.n ?? 0) };
  } finally {
    await bus.close();
    await ch.close();
    await cleanupRedisPrefix(testRedisUrl(), prefix);
  }
}

async function queries(linkClicks: number, accountClicks: number, requests: number) {
  const ch = await createClickHouse({ path: ":memory:", database: "bench_queries" });
  await migrate(ch);
  const seedStart = performance.now();
  const seeded = await seedAnalytics(ch, { linkClicks, accountClicks, accountLinks: 2_000 });
  const seedSeconds = (performance.now() - seedStart) / 1000;
  // A year of clicks arrives here in seconds; in a live system the parts of past days were merged
  // long ago. Queries start once the merges the seeding set off are done (at most 5 minutes), so
  // that they measure reads, not a merge storm on the same two cores.
  const settleStart = performance.now();
  while (performance.now() - settleStart < 300_000) {
    const [m] = await ch.query<{ n: number }>("SELECT toUInt64(count()) AS n FROM system.merges");
    if (Number(m?.n ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const settleSeconds = (performance.now() - settleStart) / 1000;
  const token = "bench-token";
  // Stands in for management (which the bench does not run): the seeded links exist, as seeded.
  const known = new Map([[seeded.link.link_id, seeded.link.short_code]]);
  for (const id of seeded.account.link_ids) known.set(id, id.slice(0, 8));
  const links: LinkDirectory = {
    link: async (_account, id) =>
      known.has(id)
        ? { link_id: id, short_code: known.get(id)!, created_at: new Date(0).toISOString() }
        : null,
    publicLink: async () => null,
    linksSummary: async (_account, candidates) => ({
      total_links: seeded.account.link_ids.length,
      active_links: seeded.account.link_ids.length,
      links: candidates.map((id) => ({
        id,
        short_code: known.get(id) ?? id,
        original_url: "https://example.com/",
        title: "",
      })),
      deleted_link_ids: [],
      deleted_truncated: false,
    }),
  };
  const app = createAnalyticsApp({
    ch,
    links,
    logger: createLogger("bench", "warn"),
    internalToken: token,
    readiness: {},
  });
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const now = Date.now();
  const end = new Date(now).toISOString().slice(0, 10);
  const start30 = new Date(now - 29 * 86_400_000).toISOString().slice(0, 10);
  // The same 8 calendar days twice: as dates, and from 7 days ago to now with times of day.
  const start7 = new Date(now - 7 * 86_400_000).toISOString().slice(0, 10);
  const q = (from: number, to: number) =>
    `start=${encodeURIComponent(new Date(from).toISOString())}&end=${encodeURIComponent(new Date(to).toISOString())}`;
  const last7 = q(now - 7 * 86_400_000, now);
  const last24h = q(now - 86_400_000, now);
  // As the gateway forwards an API key's request: the key's account and scopes.
  const headersFor = (account: string) =>
    forwardedHeaders(token, { accountId: account, keyId: "bench", scopes: ["analytics:read"] });
  const get = async (path: string, account: string) => {
    const res = await fetch(`${base}${path}`, { headers: headersFor(account) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  try {
    const link = seeded.link;
    const account = seeded.account.account_id;
    const linkPath = `/api/v1/analytics/${link.link_id}`;
    const plan: (readonly [string, string, string])[] = [
      [`link, ${int(linkClicks)} clicks, all time`, linkPath, link.account_id],
      ["link, last 30 days (dates)", `${linkPath}?start=${start30}&end=${end}`, link.account_id],
      ["link, last 7 days (dates)", `${linkPath}?start=${start7}&end=${end}`, link.account_id],
      ["link, last 7 days with times of day", `${linkPath}?${last7}`, link.account_id],
      [
        "link, last 7 days with times of day, interval=hour",
        `${linkPath}?${last7}&interval=hour`,
        link.account_id,
      ],
      [
        "link, last 24 h with times of day, interval=hour",
        `${linkPath}?${last24h}&interval=hour`,
        link.account_id,
      ],
      [`summary, ${int(accountClicks)} clicks over 2,000 links`, "/api/v1/analytics/summary", account],
      ["summary, last 30 days (dates)", `/api/v1/analytics/summary?start=${start30}&end=${end}`, account],
      ["summary, last 7 days (dates)", `/api/v1/analytics/summary?start=${start7}&end=${end}`, account],
      ["summary, last 7 days with times of day", `/api/v1/analytics/summary?${last7}`, account],
      [
        "summary, last 7 days with times of day, interval=hour",
        `/api/v1/analytics/summary?${last7}&interval=hour`,
        account,
      ],
    ];
    for (const [, path, who] of plan) for (let i = 0; i < 6; i++) await get(path, who);
    // Round robin: the i-th request of every row runs before the (i+1)-th of any, so a burst of load
    // from other work on a shared machine falls on all rows alike and the ratios compare like with like.
    const times = plan.map(() => [] as number[]);
    for (let i = 0; i < requests; i++) {
      for (const [r, [, path, who]] of plan.entries()) {
        const t = performance.now();
        await get(path, who);
        times[r]!.push(performance.now() - t);
      }
    }
    const rows = plan.map(([name], r) => {
      const sorted = [...times[r]!].sort((a, b) => a - b);
      return [name, { p50: pct(sorted, 50), p99: pct(sorted, 99) }] as const;
    });
    return { rows, times: plan.map(([name], r) => [name, times[r]!] as const), seedSeconds, settleSeconds };
  } finally {
    await new Promise((r) => server.close(r));
    await ch.close();
  }
}

function ratio(rows: readonly (readonly [string, { p99: number }])[], what: string): string {
  const p99 = (name: string) => rows.find(([n]) => n === `${what}, ${name}`)![1].p99;
  return `${(p99("last 7 days with times of day") / p99("last 7 days (dates)")).toFixed(2)}×`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The same ratio, made robust: the round-robin requests are cut into `blocks` consecutive blocks
 * (each block is an alternating pair of samples taken over the same stretch of time), the p99 ratio
 * is taken per block, and the median of the blocks' ratios is reported, as the redirect bench does
 * with its pairs. One burst of load on a shared host then moves one block, not the answer.
 */
function blockRatios(times: readonly (readonly [string, number[]])[], what: string, blocks: number) {
  const of = (name: string) => times.find(([n]) => n === `${what}, ${name}`)![1];
  const a = of("last 7 days with times of day");
  const b = of("last 7 days (dates)");
  const size = Math.floor(a.length / blocks);
  // Fewer rounds than blocks (e.g. --requests 1 for an ingest-only run): no blocks to compare.
  if (size === 0) return `no blocks (${a.length} rounds for ${blocks} blocks)`;
  const ratios: { p50: number; p99: number }[] = [];
  for (let k = 0; k < blocks && size > 0; k++) {
    const sa = a.slice(k * size, (k + 1) * size).sort((x, y) => x - y);
    const sb = b.slice(k * size, (k + 1) * size).sort((x, y) => x - y);
    ratios.push({ p50: pct(sa, 50) / pct(sb, 50), p99: pct(sa, 99) / pct(sb, 99) });
  }
  const x = (n: number) => `${n.toFixed(2)}×`;
  return (
    `median of ${ratios.length} blocks of ${size} rounds: p99 **${x(median(ratios.map((r) => r.p99)))}**, ` +
    `p50 ${x(median(ratios.map((r) => r.p50)))} (blocks' p99 ratios: ${ratios.map((r) => x(r.p99)).join(", ")})`
  );
}

export async function run(args: string[]): Promise<string> {
  const { values } = parseArgs({
    args,
    options: {
      ingest: { type: "string", default: "200000" },
      "link-clicks": { type: "string", default: "1000000" },
      "account-clicks": { type: "string", default: "10000000" },
      requests: { type: "string", default: "200" },
      blocks: { type: "string", default: "5" },
    },
    strict: false,
  });
  const total = Number(values.ingest);
  const linkClicks = Number(values["link-clicks"]);
  const accountClicks = Number(values["account-clicks"]);
  const requests = Number(values.requests);
  const blocks = Number(values.blocks);

  const ing = await ingest(total);
  const q = await queries(linkClicks, accountClicks, requests);
  const date = new Date().toISOString().slice(0, 10);
  return [
    "## analytics",
    "",
    `\`./kurz bench analytics --ingest ${total} --link-clicks ${linkClicks} --account-clicks ${accountClicks} --requests ${requests}\` (${date}).`,
    "Embedded ClickHouse (chDB, in the benchmark process), Redis Streams bus on the local Redis server.",
    "",
    "**Ingest** (bus → validation, enrichment with ua-parser/isbot/DB-IP, duplicate check, insert, the account rollups (hourly, then daily) and link_stats (every click exploded once, then per click, hour, day and all time)):",
    `${int(total)} clicks in ${int(total / 200)}+ messages of ≤ 200 clicks over 1,000 links, already on the bus;`,
    `stored ${int(ing.stored)} in ${ing.seconds.toFixed(2)} s: **${int(ing.rate)} clicks/s** (target ≥ 20,000).`,
    "",
    `**Queries** over HTTP against the analytics app (no gateway), ${requests} sequential requests after 5 warm-ups;`,
    `seeding ${int(linkClicks + accountClicks)} clicks with \`infra/bench/_analytics-seed.ts\` took ${q.seedSeconds.toFixed(1)} s, and its merges ${q.settleSeconds.toFixed(1)} s more.`,
    "",
    "| query | p50 | p99 |",
    "|---|---|---|",
    ...q.rows.map(([name, r]) => `| ${name} | ${ms(r.p50)} | ${ms(r.p99)} |`),
    "",
    `Times of day vs the same days as dates (p99 over all ${requests} rounds): link ${ratio(q.rows, "link")}, summary ${ratio(q.rows, "summary")} (target ≤ 1.5×).`,
    `The same, ${blocks} blocks: link ${blockRatios(q.times, "link", blocks)}; summary ${blockRatios(q.times, "summary", blocks)}.`,
    "",
  ].join("\n");
}
