// Bounded loopback load: N redirects over keep-alive connections, then exactly N click events on the
// bus (counted by click id at a consumer of our own, as analytics would see them).
import { Agent, request } from "node:http";
import { redirectKey } from "@kurz/contracts";
import {
  cleanupRedisPrefix,
  printProcessOutputOnFailure,
  testRedisUrl,
  uniquePrefix,
  waitFor,
} from "@kurz/testing";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { observeClicks } from "./support/click-observer.ts";
import { type FakeManagement, startFakeManagement } from "./support/fake-management.ts";
import { bootRedirect, metrics, type RedirectProcess } from "./support/redirect-process.ts";

printProcessOutputOnFailure();

const N = 20_000;
const CONNECTIONS = 32;
const LINKS = 1_000;
const prefix = uniquePrefix("redirect-load");
const token = `token-${prefix}`;

let mgmt: FakeManagement;
let redirect: RedirectProcess;

beforeAll(async () => {
  mgmt = await startFakeManagement(token);
  const redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  const seed = redis.pipeline();
  for (let i = 0; i < LINKS; i++) {
    seed.set(
      redirectKey(`load${i}`),
      JSON.stringify({
        id: `0190a1b2-0000-7000-8000-${String(i).padStart(12, "0")}`,
        account_id: "0190a1b2-0000-7000-8000-0000000000aa",
        url: `https://example.com/${i}`,
        active: true,
        expires_at: null,
        password_hash: null,
      }),
    );
  }
  await seed.exec();
  redis.disconnect();
  redirect = await bootRedirect({
    REDIS_URL: testRedisUrl(),
    REDIS_KEY_PREFIX: `${prefix}:`,
    BUS: "redis",
    BUS_PREFIX: prefix,
    INTERNAL_TOKEN: token,
    MANAGEMENT_URL: mgmt.url,
  });
});

afterAll(async () => {
  if (redirect) expect(await redirect.proc.stop()).toBe(0);
  await mgmt?.close();
  await cleanupRedisPrefix(testRedisUrl(), prefix);
});

it(`${N} redirects produce exactly ${N} click events`, async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const { hostname, port } = new URL(redirect.url);
  const statuses = new Map<number, number>();
  let next = 0;
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = request({ host: hostname, port, path: `/load${i % LINKS}`, agent }, (res) => {
        statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
  const worker = async () => {
    while (next < N) await one(next++);
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  expect(Object.fromEntries(statuses)).toEqual({ 302: N });

  const observer = await observeClicks({ prefix, redisUrl: testRedisUrl() });
  try {
    await waitFor(() => observer.events.length >= N, {
      timeoutMs: 30_000,
      intervalMs: 200,
      description: `${N} clicks on the bus`,
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(observer.events.length).toBe(N);
    expect(observer.counts.size).toBe(N);
    expect(new Set(observer.events.map((e) => e.short_code)).size).toBe(LINKS);
    const m = await metrics(redirect);
    expect(m).toMatchObject({ clicks_published_total: N, clicks_dropped_total: 0, clicks_buffered: 0 });
  } finally {
    await observer.stop();
  }
});
