// The synthetic traffic both analytics benchmarks ingest (analytics.ts and _analytics-ingest-profile.ts):
// clicks over 1,000 links of 50 accounts, from random public-looking IPv4 addresses and a mix of
// browsers, phones and one link-preview bot. One generator, so both measure the same work.

import { randomUUID } from "node:crypto";
import type { ClickBatch } from "@kurz/contracts";
import { uuidv7 } from "@kurz/testing";

export type SyntheticClick = ClickBatch["clicks"][number];
export interface SyntheticLink {
  id: string;
  account: string;
}

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
  "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
];

/** 1,000 links spread over 50 accounts. */
export function syntheticLinks(): SyntheticLink[] {
  const accounts = Array.from({ length: 50 }, () => randomUUID());
  return Array.from({ length: 1_000 }, (_, i) => ({ id: randomUUID(), account: accounts[i % 50]! }));
}

/** The i-th click, on a random one of `links`. */
export function syntheticClick(links: SyntheticLink[], i: number): SyntheticClick {
  const link = links[Math.floor(Math.random() * links.length)]!;
  return {
    v: 1,
    click_id: uuidv7(),
    link_id: link.id,
    account_id: link.account,
    short_code: "bench",
    ts: new Date().toISOString(),
    ip: `${1 + Math.floor(Math.random() * 220)}.${i % 256}.${(i >> 8) % 256}.${(i * 7) % 256}`,
    user_agent: AGENTS[i % AGENTS.length]!,
    referrer: i % 3 === 0 ? null : `https://ref${i % 20}.example/`,
    host: "kurz.test",
  };
}
