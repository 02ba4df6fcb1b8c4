// Seeds ClickHouse for the analytics benchmark, in bulk with numbers() in SQL (a million rows a
// second or so, instead of generating them in Node): one link with 1M clicks, and an account with
// 10M clicks over 2,000 links, spread over the last 365 days. The materialized views fill the
// rollups as the rows go in, exactly as they do for ingested clicks.
//
// Standalone: `node --import tsx infra/bench/_analytics-seed.ts [--link-clicks N] [--account-clicks N]`
// seeds the ClickHouse that CLICKHOUSE_URL (or CLICKHOUSE_PATH) names, after migrating it, and
// prints the ids to query.
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { createClickHouse, type KurzClickHouse, migrate } from "@kurz/clickhouse";

export interface SeedOptions {
  linkClicks: number;
  accountClicks: number;
  accountLinks: number;
}

export interface Seeded {
  link: { link_id: string; account_id: string; short_code: string };
  account: { account_id: string; link_ids: string[] };
}

const CHUNK = 1_000_000;
const SEEDED_COLUMNS =
  "click_id, link_id, account_id, short_code, ts, referrer, country, city, device_type, browser, os, is_bot, visitor_hash, host";

// Values cycle with different periods, so combinations vary; visitors repeat (400k per link-year).
const SELECT_CLICKS = `
  SELECT
    generateUUIDv7(number) AS click_id,
    {links:Array(UUID)}[(number % length({links:Array(UUID)})) + 1] AS link_id,
    {account:UUID} AS account_id,
    'bench' AS short_code,
    now64(3, 'UTC') - toIntervalMillisecond(intHash64(number + {offset:UInt64}) % 31536000000) AS ts,
    if(number % 3 = 0, NULL, concat('https://ref', toString(intHash32(number) % 50), '.example/')) AS referrer,
    ['US','GB','DE','FR','JP','BR','IN','CA','AU','NL','ES','IT'][(intHash32(number + 1) % 12) + 1] AS country,
    concat('City ', toString(intHash32(number + 2) % 300)) AS city,
    ['desktop','mobile','tablet'][(intHash32(number + 3) % 3) + 1] AS device_type,
    ['Chrome','Mobile Safari','Firefox','Edge','Safari','Samsung Internet'][(intHash32(number + 4) % 6) + 1] AS browser,
    ['Windows','iOS','Android','Mac OS','Linux'][(intHash32(number + 5) % 5) + 1] AS os,
    if(number % 25 = 0, 1, 0) AS is_bot,
    intHash64(number % 400000) AS visitor_hash,
    'kurz.test' AS host
  FROM numbers({start:UInt64}, {count:UInt64})`;

async function insertClicks(ch: KurzClickHouse, account: string, links: string[], total: number) {
  for (let start = 0; start < total; start += CHUNK) {
    // Columns named: `clicks` has `message_token` too (migration 0006), which seeded rows leave ''.
    await ch.command(`INSERT INTO clicks (${SEEDED_COLUMNS}) ${SELECT_CLICKS}`, {
      links,
      account,
      offset: links.length * 7919,
      start,
      count: Math.min(CHUNK, total - start),
    });
  }
}

async function insertLinks(ch: KurzClickHouse, account: string, links: string[], codePrefix: string) {
  const now = new Date().toISOString().replace("T", " ").replace("Z", "");
  await ch.insert(
    "links",
    links.map((link_id, i) => ({
      link_id,
      account_id: account,
      short_code: `${codePrefix}${i}`,
      title: `Bench link ${i}`,
      original_url: `https://example.com/${i}`,
      is_active: i % 10 === 0 ? 0 : 1,
      expires_at: null,
      analytics_public: 0,
      shares_all_fields: 1,
      analytics_shared_fields: [],
      deleted: 0,
      version: Date.now(),
      updated_at: now,
    })),
  );
}

export async function seedAnalytics(ch: KurzClickHouse, opts: SeedOptions): Promise<Seeded> {
  const link = {
    link_id: randomUUID(),
    account_id: randomUUID(),
    short_code: `b1m${Date.now().toString(36)}`,
  };
  await insertLinks(ch, link.account_id, [link.link_id], link.short_code);
  await insertClicks(ch, link.account_id, [link.link_id], opts.linkClicks);

  const account = {
    account_id: randomUUID(),
    link_ids: Array.from({ length: opts.accountLinks }, () => randomUUID()),
  };
  await insertLinks(ch, account.account_id, account.link_ids, `b10m${Date.now().toString(36)}-`);
  await insertClicks(ch, account.account_id, account.link_ids, opts.accountClicks);
  return { link, account };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      "link-clicks": { type: "string", default: "1000000" },
      "account-clicks": { type: "string", default: "10000000" },
      "account-links": { type: "string", default: "2000" },
    },
  });
  const ch = await createClickHouse({
    url: process.env.CLICKHOUSE_URL || undefined,
    path: process.env.CLICKHOUSE_PATH ?? "./.data/clickhouse",
    database: process.env.CLICKHOUSE_DATABASE ?? "kurz",
  });
  await migrate(ch);
  const seeded = await seedAnalytics(ch, {
    linkClicks: Number(values["link-clicks"]),
    accountClicks: Number(values["account-clicks"]),
    accountLinks: Number(values["account-links"]),
  });
  console.log(JSON.stringify({ link: seeded.link, account_id: seeded.account.account_id }));
  await ch.close();
}
