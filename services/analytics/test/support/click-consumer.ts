// The click consumer fixture (fixtures/click-consumer.ts) started as a process of its own over a chDB
// data directory and a bus prefix, and the full click messages the heap tests give it.
import { join } from "node:path";
import { CLICK_BATCH_MAX, clickPartitionKey, encodeClickBatch } from "@kurz/contracts";
import { type StartedProcess, startProcess, testRedisUrl, uuidv7 } from "@kurz/testing";
import { bundleFixture } from "@kurz/testing/bundles";
import { CHDB_DATABASE } from "@kurz/testing/migrated-chdb";

export interface ClickConsumerOptions {
  /** The chDB data directory it opens. */
  path: string;
  /** The bus prefix it reads clicks under. */
  prefix: string;
  /** Node flags, e.g. a small old generation. */
  nodeFlags?: string[];
  /** More of the fixture's environment (MAX_BATCH_SIZE, CRASH_AFTER_INSERTS). */
  env?: Record<string, string>;
}

/** Starts the fixture and waits for its "ready" line. */
export async function startClickConsumer(opts: ClickConsumerOptions): Promise<StartedProcess> {
  return startProcess({
    cmd: process.execPath,
    args: [
      ...(opts.nodeFlags ?? []),
      await bundleFixture(join(import.meta.dirname, "..", "fixtures", "click-consumer.ts")),
    ],
    env: {
      CLICKHOUSE_PATH: opts.path,
      CLICKHOUSE_DATABASE: CHDB_DATABASE,
      BUS_PREFIX: opts.prefix,
      REDIS_URL: testRedisUrl(),
      ...opts.env,
    },
    readyLine: "ready",
    readyTimeoutMs: 60_000,
  });
}

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
];

/**
 * One bus message of CLICK_BATCH_MAX human clicks on `link`, a millisecond apart from `ts` (epoch ms),
 * from addresses that `salt` (a message's number) keeps apart from other messages', with three
 * browsers' agents and a third of them direct.
 */
export function fullClickMessage(
  link: { id: string; account: string; code: string },
  ts: number,
  salt: number,
) {
  const clicks = Array.from({ length: CLICK_BATCH_MAX }, (_, i) => ({
    v: 1 as const,
    click_id: uuidv7(),
    link_id: link.id,
    account_id: link.account,
    short_code: link.code,
    ts: new Date(ts + i).toISOString(),
    ip: `${1 + (i % 200)}.${salt % 256}.${Math.floor(salt / 256) % 256}.${i % 256}`,
    user_agent: AGENTS[i % AGENTS.length]!,
    referrer: i % 3 === 0 ? null : `https://ref${i % 20}.example/`,
    host: "kurz.test",
  }));
  return { key: clickPartitionKey(link.id), value: encodeClickBatch(clicks) };
}
