// The fault suite: sustained load through the public origin of a scaled stack (3 redirect,
// 2 gateway, 2 management, 1 analytics; Kafka mock cluster with 3 brokers; a Postgres and a Redis of
// its own), one fault at a time. For each: answered redirects against stored clicks, acknowledged API
// writes against stored links, every status seen, and the time from the fault's end to the last
// failed request. The results table goes into docs/reliability.md.
// Outages last KURZ_CHAOS_FAULT_MS (3 s in ./kurz test; `./kurz chaos` runs the full 10 s).
// The scale-out checks (scale-out.ts) run first on the same stack: one stack to start, not two.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { kafkaOffsets, kafkaPartitionOf } from "@kurz/bus/testing";
import { clickPartitionKey } from "@kurz/contracts";
import { printProcessOutputOnFailure, waitFor } from "@kurz/testing";
import {
  type PrivatePostgres,
  type PrivateRedis,
  startPrivatePostgres,
  startPrivateRedis,
} from "@kurz/testing/private-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scaleOutChecks } from "./scale-out.ts";
import { type ScaledStack, startScaledStack } from "./scaled-stack.ts";

printProcessOutputOnFailure();
const FAULT_MS = Number(process.env.KURZ_CHAOS_FAULT_MS || 3_000);
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const HANG_MS = 10_000;
let pg: PrivatePostgres;
let redis: PrivateRedis;
let stack: ScaledStack;
let key = "";
/**
 * The load's links, one per partition of the clicks topic: the Kafka mock cluster keeps about 5 MiB
 * per partition (some 19,800 clicks) and drops the oldest messages beyond, read or not. With every
 * click on one link, one run of the suite (~40,000 clicks, ~23,000 in one fault's window) went past
 * it, and a consumer that lagged behind that much lost what the broker dropped: the broker outage's
 * 2,320 and the freeze's 910 missing clicks (docs/reliability.md). Spread over six, no partition
 * nears it.
 */
const CLICK_PARTITIONS = 6;
const links: { id: string; short_code: string }[] = [];
/**
 * Each redirect loop's pace: at most one request every 40 ms, 100 a second from the four loops. Every
 * invariant is per click (each answered click stored once, each redirect a 302), so some hundreds of
 * clicks around a fault prove what tens of thousands would; a loop sending as fast as the machine
 * allows takes the cores from the stack under test and from the tests running beside the suite.
 */
const REDIRECT_EVERY_MS = 40;

beforeAll(async () => {
  pg = await startPrivatePostgres();
  redis = await startPrivateRedis();
  stack = await startScaledStack({
    scale: { redirect: 3, gateway: 2, management: 2 },
    pgAdminUrl: pg.adminUrl,
    redisUrl: redis.url,
    env: {
      // The redirect publishes one message per partition key and flush, and analytics inserts each
      // message on its own (decision 0049): six links at the default 50 ms made six times the inserts
      // of one link, more than the consumer keeps up with on two loaded cores (1,013 clicks counted
      // only after the 60 s settle time). At 500 ms the six links cost less than one did at 50 ms
      // (decision 0049 records this per-message cost as open).
      CLICK_FLUSH_MS: "500",
    },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await redis?.stop();
  await pg?.stop();
});

async function call(method: string, path: string, body?: unknown) {
  const started = Date.now();
  try {
    const res = await fetch(`${stack.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(HANG_MS),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return {
      status: res.status,
      retryAfter: res.headers.get("retry-after"),
      body: parsed,
      ms: Date.now() - started,
    };
  } catch (err) {
    // A timeout is a hang; anything else a refused or reset connection.
    return {
      status: (err as Error).name === "TimeoutError" ? -1 : 0,
      retryAfter: null,
      body: null,
      ms: Date.now() - started,
    };
  }
}

interface Counters {
  redirects: Map<number, number>;
  api: Map<number, number>;
  answered: number;
  acked: string[];
  missingRetryAfter: number;
  lastFailure: number;
}

function startLoad(c: Counters) {
  let running = true;
  const count = (m: Map<number, number>, s: number) => m.set(s, (m.get(s) ?? 0) + 1);
  // Bounded: each loop stops at `running = false` or after 50,000 requests.
  const redirects = Array.from({ length: 4 }, async (_, loop) => {
    for (let i = 0; running && i < 50_000; i++) {
      const due = Date.now() + REDIRECT_EVERY_MS;
      const link = links[(loop + i) % links.length]!;
      const status = await fetch(`${stack.origin}/${link.short_code}`, {
        redirect: "manual",
        headers: { "user-agent": BROWSER },
        signal: AbortSignal.timeout(HANG_MS),
      }).then(
        async (r) => {
          await r.arrayBuffer();
          return r.status;
        },
        (err: Error) => (err.name === "TimeoutError" ? -1 : 0),
      );
      count(c.redirects, status);
      if (status === 302) c.answered++;
      else c.lastFailure = Date.now();
      await sleep(due - Date.now());
    }
  });
  const api = (async () => {
    for (let i = 0; running && i < 50_000; i++) {
      const res = await call("POST", "/api/v1/links", { url: `https://example.com/w${i}` });
      count(c.api, res.status);
      if (res.status === 201) c.acked.push((res.body as { data: { id: string } }).data.id);
      else c.lastFailure = Date.now();
      if (res.status === 503 && !res.retryAfter) c.missingRetryAfter++;
      // The writer's pace, a time of its own: about 20 writes a second.
      await sleep(50);
    }
  })();
  return async () => {
    running = false;
    await Promise.all([...redirects, api]);
  };
}

/** The load's links' stored clicks, summed; -1 when analytics does not answer. */
async function storedClicks(): Promise<number> {
  let total = 0;
  for (const link of links) {
    const res = await call("GET", `/api/v1/analytics/${link.id}`);
    if (res.status !== 200) return -1;
    total += (res.body as { data: { total_clicks: number } }).data.total_clicks;
  }
  return total;
}

/**
 * The stored total once every answered click is stored (at most 60 s: past that, what is stored then,
 * and the row tells what is missing).
 */
async function settledClicks(): Promise<number> {
  await stack.clicksStored(60_000);
  return storedClicks();
}

interface Row {
  fault: string;
  redirects: Map<number, number>;
  api: Map<number, number>;
  lost: number;
  doubled: number;
  ackedMissing: number;
  missingRetryAfter: number;
  recoveryMs: number;
}
const rows: Row[] = [];
let storedBefore = 0;

async function underLoad(fault: string, apply: () => Promise<void>): Promise<Row> {
  const c: Counters = {
    redirects: new Map(),
    api: new Map(),
    answered: 0,
    acked: [],
    missingRetryAfter: 0,
    lastFailure: 0,
  };
  const stop = startLoad(c);
  // The fault meets a load in full flow: redirects answered and writes acknowledged.
  await waitFor(() => c.answered >= 200 && c.acked.length >= 5, {
    timeoutMs: 30_000,
    description: "the load under way",
  });
  await apply();
  const ended = Date.now();
  // Keep the load on until 3 s pass without a failed request (at most 20 s after the fault): a quiet
  // time is what recovery means here, so it is a time, polled.
  while (Date.now() - ended < 20_000 && Date.now() - Math.max(c.lastFailure, ended) < 3_000) await sleep(200);
  await stop();
  const stored = await settledClicks();
  const gained = stored - storedBefore;
  storedBefore = Math.max(stored, storedBefore);
  // Every acknowledged write read back; eight reads at a time (one at a time cost 1-2 s per fault).
  let ackedMissing = 0;
  const toRead = [...c.acked];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = toRead.pop(); id !== undefined; id = toRead.pop())
        if ((await call("GET", `/api/v1/links/${id}`)).status !== 200) ackedMissing++;
    }),
  );
  const row: Row = {
    fault,
    redirects: c.redirects,
    api: c.api,
    lost: Math.max(0, c.answered - gained),
    doubled: Math.max(0, gained - c.answered),
    ackedMissing,
    missingRetryAfter: c.missingRetryAfter,
    recoveryMs: c.lastFailure > ended ? c.lastFailure - ended : 0,
  };
  rows.push(row);
  return row;
}

/**
 * What tells the causes of missing clicks apart: the clicks topic's offsets against the analytics
 * group's committed ones (not consumed yet: committed < high; gone before they were read: the mock
 * keeps about 5 MiB per partition, so low > what the group had read), and what analytics logged
 * about its consumer and its inserts.
 */
async function whereClicksWent(): Promise<string> {
  const offsets = await kafkaOffsets(
    stack.kafka.brokers,
    `${stack.prefix}.clicks`,
    `${stack.prefix}.analytics-clicks`,
  ).catch((e: Error) => `offsets unavailable: ${e.message}`);
  const logged = stack
    .output()
    .split("\n")
    .filter(
      (l) => /^\S*analytics/.test(l) && /"level":"(error|fatal)"|consumer|dead-letter|interrupted/.test(l),
    )
    .slice(-20);
  return `clicks partitions ${JSON.stringify(offsets)}; analytics said:\n${logged.join("\n")}`;
}

/** The fault lasts until the supervisor's restart of the instance is ready. */
const killed = (name: string) => async () => {
  const pid = stack.pid(name);
  process.kill(pid, "SIGKILL");
  await stack.restarted(name, pid);
};

const FAULTS: [string, () => Promise<void>][] = [
  ["SIGKILL redirect-1", killed("redirect-1")],
  ["SIGKILL gateway-1", killed("gateway-1")],
  ["SIGKILL management-1", killed("management-1")],
  ["SIGKILL analytics", killed("analytics")],
  [`Redis stopped ${FAULT_MS / 1000} s`, () => redis.outage(FAULT_MS)],
  [
    `Kafka broker 1 down ${FAULT_MS / 1000} s`,
    async () => {
      await stack.kafka.setBroker("down", 1);
      await sleep(FAULT_MS); // the outage's length is the fault
      await stack.kafka.setBroker("up", 1);
    },
  ],
  ["Postgres restarted", () => pg.restart()],
  [
    `analytics store unavailable ${FAULT_MS / 1000} s (process frozen)`,
    async () => {
      const pid = stack.pid("analytics");
      process.kill(pid, "SIGSTOP");
      await sleep(FAULT_MS); // the freeze's length is the fault
      process.kill(pid, "SIGCONT");
    },
  ],
];

/**
 * Faults skipped because of an open bug, with the reason in the test's name (docs/reliability.md).
 * None now. Fixed: the SIGKILL of analytics lost the clicks of an interrupted insert (decision 0049);
 * the broker outage lost clicks the Kafka mock dropped before the consumer read them (one link's
 * partition past the mock's 5 MiB; the load now spreads over six); the freeze left 2,514 clicks
 * unconsumed 60 s after it, because the consumer inserted each message on its own (2,222-2,600
 * clicks/s on chDB) and could not catch up; since decision 0049 a run of up to 100 messages is one
 * insert.
 */
const openBugs: Record<string, string> = {};
const openBug = (fault: string) => fault in openBugs;

const statusText = (m: Map<number, number>) =>
  [...m]
    .filter(([s]) => s !== 302 && s !== 201)
    .map(([s, n]) => `${s === -1 ? "hung" : s === 0 ? "refused/reset" : s}: ${n}`)
    .join(", ") || "none";

function format(list: Row[]): string {
  const lines = [
    "| fault | redirects | API writes | errors (redirects) | errors (API) | clicks lost / doubled | acked writes lost | recovery |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const r of list) {
    const total = (m: Map<number, number>) => [...m.values()].reduce((a, b) => a + b, 0);
    lines.push(
      `| ${r.fault} | ${total(r.redirects)} | ${total(r.api)} | ${statusText(r.redirects)} | ${statusText(r.api)} | ` +
        `${r.lost} / ${r.doubled} | ${r.ackedMissing} | ${(r.recoveryMs / 1000).toFixed(1)} s |`,
    );
  }
  return lines.join("\n");
}

scaleOutChecks(() => stack);

describe("one fault at a time under sustained load", () => {
  beforeAll(async () => {
    // The load's key must not meet its own rate limit. The API writer creates a link every ~50 ms
    // through every fault: past the default limit of 500 links, it met 403s, and the load ran on at full
    // rate for the 20 s bound (a window three times any other's).
    key = (
      await stack.createAccount("faults@example.com", 100_000, {
        RATE_LIMIT_PER_MINUTE: "100000",
        RATE_LIMIT_PER_HOUR: "1000000",
      })
    ).api_key;
    // Links until one falls in each partition, eight created at a time.
    const partitions = new Set<number>();
    for (let round = 0; links.length < CLICK_PARTITIONS && round < 25; round++) {
      const created = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call("POST", "/api/v1/links", { url: `https://example.com/cached-${round}-${i}` }),
        ),
      );
      for (const res of created) {
        const link = (res.body as { data: (typeof links)[number] }).data;
        const partition = kafkaPartitionOf(clickPartitionKey(link.id), CLICK_PARTITIONS);
        if (links.length === CLICK_PARTITIONS || partitions.has(partition)) continue;
        partitions.add(partition);
        links.push(link);
      }
    }
    expect(links).toHaveLength(CLICK_PARTITIONS);
    // Cached by every redirect instance before any fault.
    await Promise.all(
      links.flatMap((link) =>
        [0, 1, 2].map((i) => fetch(`${stack.redirectUrl(i)}/${link.short_code}`, { redirect: "manual" })),
      ),
    );
  });

  for (const [fault, apply] of FAULTS) {
    const test = openBug(fault) ? it.skip : it;
    const title = openBug(fault)
      ? `${fault} (skipped: ${openBugs[fault]}, see docs/reliability.md)`
      : `${fault}: no click lost, none doubled, nothing acknowledged lost, cached redirects never fail`;
    test(title, {
      timeout: 150_000,
    }, async () => {
      const row = await underLoad(fault, apply);
      console.log(format([row]));
      expect(row.lost, `clicks lost${row.lost > 0 ? `; ${await whereClicksWent()}` : ""}`).toBe(0);
      // A redirect killed with SIGKILL has journaled the clicks of requests it had not answered; the
      // edge retries those GETs on another instance with the same request id, so both copies carry one
      // click id and analytics keeps one (decision 0049): no allowance, for this fault either.
      expect(row.doubled, "clicks doubled").toBe(0);
      expect(row.ackedMissing, "acknowledged writes missing").toBe(0);
      expect([...row.redirects.keys()], "redirect statuses").toEqual([302]);
      expect(row.api.get(500) ?? 0, "API 500s").toBe(0);
      expect(row.api.get(-1) ?? 0, "API requests that hung").toBe(0);
      expect(row.missingRetryAfter, "503s without Retry-After").toBe(0);
      expect(row.recoveryMs, "recovery after the fault").toBeLessThanOrEqual(10_000);
    });
  }

  it("writes the results table into docs/reliability.md", () => {
    expect(rows.length).toBe(FAULTS.filter(([f]) => !openBug(f)).length);
    const path = resolve(import.meta.dirname, "../../docs/reliability.md");
    const start = "<!-- chaos-results:start -->";
    const end = "<!-- chaos-results:end -->";
    const doc = readFileSync(path, "utf8");
    const table =
      `${start}\nLast run: ${new Date().toISOString().slice(0, 16)} UTC, outages of ${FAULT_MS / 1000} s ` +
      `(tests/chaos/faults.test.ts; \`./kurz chaos\` for 10 s), load: 4 redirect loops (each at most 25 requests a second) ` +
      `and one API writer over six links (one per clicks partition) through the public origin.\n\n${format(rows)}\n${end}`;
    const next = doc.includes(start)
      ? doc.replace(new RegExp(`${start}[\\s\\S]*?${end}`), table)
      : `${doc.trimEnd()}\n\n## Fault suite results\n\n${table}\n`;
    writeFileSync(path, next);
  });
});
