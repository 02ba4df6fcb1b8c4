// `./kurz import clicks` while the redirect's Redis does not answer and the bus (Kafka) does
// (docs/continuity.md): the clicks still replay into analytics, the report counts the clicks of
// links with a click limit that did not advance it, and the command says to run it again. Run again
// once Redis answers, those clicks advance the counter, each once; analytics counts nothing twice.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { startKafkaMock } from "@kurz/bus/testing";
import { clickLimitKey } from "@kurz/contracts";
import { getFreePort, uniquePrefix, waitFor } from "@kurz/testing";
import { type Stack, stackTopics, startStack } from "@kurz/testing/stack";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { api, RELAXED_LIMITS, uniqueEmail } from "../security/attack.ts";
import { snapshotLogLine } from "../security/snapshot-log.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);
const DESKTOP =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let stack: Stack;
let stopKafka: () => Promise<void> = async () => {};
let dir = "";
let email = "";
let call: ReturnType<typeof api>;

beforeAll(async () => {
  const prefix = uniquePrefix("replay-kafka");
  const kafka = await startKafkaMock({ topics: stackTopics(prefix), partitions: 3 });
  stopKafka = () => kafka.stop();
  stack = await startStack({
    inProcess: true,
    prefix,
    bus: "kafka",
    kafkaBrokers: kafka.brokers,
    extraEnv: RELAXED_LIMITS,
  });
  email = uniqueEmail("replay-kafka");
  call = api(stack, (await stack.createAccount(email)).api_key);
  dir = mkdtempSync(join(tmpdir(), "kurz-replay-kafka-"));
});

afterAll(async () => {
  await stack?.stop();
  await stopKafka();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `./kurz import clicks` against the stack, with `env` over the stack's own: its report. */
async function replay(log: string, env: Record<string, string> = {}) {
  const { stdout, stderr } = await run(
    process.execPath,
    ["--import", "tsx", "infra/local/cli.ts", "import", "clicks", "--account", email, "--nginx-log", log],
    { cwd: ROOT, env: { ...process.env, ...stack.env, ...env }, timeout: 120_000 },
  );
  return { report: JSON.parse(stdout.trim().split("\n").at(-1)!), stderr };
}

/** A line of the snapshot's nginx log for a redirect of `code`, with a request id of its own. */
const logLine = (code: string, userAgent: string, at: number) =>
  snapshotLogLine(randomBytes(16).toString("hex"), code, at, { user_agent: userAgent });

it("replays the clicks without Redis, says which were not counted against their limit, and counts them once when run again", async () => {
  const res = await call("POST", "/api/v1/links", { url: "https://example.com/limited", max_clicks: 5 });
  expect(res.status, res.text).toBe(201);
  const { id, short_code: code } = res.body.data as { id: string; short_code: string };
  const now = Date.now();
  const log = join(dir, "access.log");
  writeFileSync(
    log,
    [
      logLine(code, DESKTOP, now - 3000),
      logLine(code, DESKTOP, now - 2000),
      logLine(code, BOT, now - 1000),
    ].join(""),
  );

  // Nothing listens on this port: the counters' Redis is down, the bus is not.
  const down = await replay(log, { REDIS_URL: `redis://127.0.0.1:${await getFreePort()}` });
  expect(down.report).toMatchObject({ lines: 3, replayed: 3, bad: 0, limitCounted: 0, limitNotCounted: 2 });
  expect(down.stderr).toContain("Redis was not reachable, so 2 clicks");
  const counted = await waitFor(
    async () => {
      const a = await call("GET", `/api/v1/analytics/${id}`);
      expect(a.status, a.text).toBe(200);
      const data = a.body.data as { total_clicks: number; bot_clicks: number };
      return data.total_clicks + data.bot_clicks >= 3 ? data : null;
    },
    { timeoutMs: 30_000, description: "the replayed clicks in analytics" },
  );
  expect(counted).toMatchObject({ total_clicks: 2, bot_clicks: 1 });

  const redis = new Redis(stack.env.REDIS_URL!, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
  try {
    expect(await redis.get(clickLimitKey(id))).toBeNull();
    const up = await replay(log);
    expect(up.report).toMatchObject({ replayed: 3, limitCounted: 2, limitNotCounted: 0 });
    expect(await redis.get(clickLimitKey(id))).toBe("2");
    // Once more with one new visit at the log's end: only that one advances the counter.
    appendFileSync(log, logLine(code, DESKTOP, now));
    const again = await replay(log);
    expect(again.report).toMatchObject({ replayed: 4, limitCounted: 1, limitNotCounted: 0 });
    expect(await redis.get(clickLimitKey(id))).toBe("3");
  } finally {
    redis.disconnect();
  }
  // The same clicks published three times are the same clicks: once the new one is counted, analytics
  // holds each click once.
  const after = await waitFor(
    async () => {
      const a = await call("GET", `/api/v1/analytics/${id}`);
      const data = a.body.data as { total_clicks: number; bot_clicks: number };
      return data.total_clicks >= 3 ? data : null;
    },
    { timeoutMs: 30_000, description: "the new visit in analytics" },
  );
  expect(after).toMatchObject({ total_clicks: 3, bot_clicks: 1 });
}, 180_000);
