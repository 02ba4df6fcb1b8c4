// The health scheduler against real Postgres, Redis and local HTTP servers, driven by its tick and an
// injected clock: what is due is checked and what is not is left alone, the workspace's interval and
// `off` are honoured, two schedulers share the work without checking a link twice or exceeding a site's
// politeness limit, the global budget holds, and a failed Redis or Postgres is survived.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createPrisma, type PrismaClient, poolOf } from "@kurz/db";
import { cleanupRedisPrefix, type TestDatabase, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { createMigratedDatabase } from "@kurz/testing/migrated-database";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { updateAccount } from "../src/accounts/update-account.ts";
import { loadManagementConfig } from "../src/config.ts";
import { DestinationChecker } from "../src/health/check-destination.ts";
import { HealthScheduler } from "../src/health/schedule-runner.ts";
import { healthSchedulerFrom } from "../src/health/scheduler-from-config.ts";
import { SiteSlots } from "../src/health/site-slots.ts";
import { RedirectRecords } from "../src/projections/link-records.ts";
import { createTestAccount, uniqueAlias } from "./links-helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const KEY_LIMITS = { perMinute: 60, perHour: 1000 };

let database: TestDatabase;
let prisma: PrismaClient;
let redis: Redis;
let prefix: string;
let server: Server;
let port: number;
let checker: DestinationChecker;

/** Every request the server answered: its Host's name, path, and when it arrived and ended. */
let seen: { host: string; path: string; at: number; end: number }[] = [];
let inFlight = new Map<string, number>();
let maxInFlight = new Map<string, number>();

function handle(req: IncomingMessage, res: ServerResponse): void {
  const host = (req.headers.host ?? "").replace(/:\d+$/, "");
  const site = host.split(".").slice(-2).join(".");
  const entry = { host, path: req.url ?? "/", at: Date.now(), end: 0 };
  seen.push(entry);
  const n = (inFlight.get(site) ?? 0) + 1;
  inFlight.set(site, n);
  maxInFlight.set(site, Math.max(maxInFlight.get(site) ?? 0, n));
  // A slow answer, so two checks of one site at once would overlap at the server.
  setTimeout(() => {
    inFlight.set(site, (inFlight.get(site) ?? 1) - 1);
    entry.end = Date.now();
    res.end("ok");
  }, 60);
}

// Every *.test name is this machine; the checker is told they are allowed (as the title fetch's tests do).
const resolve = async (hostname: string) => {
  if (hostname.endsWith(".test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error(`${hostname} does not resolve`), { code: "ENOTFOUND" });
};

let clock = Date.UTC(2031, 4, 1, 12);
const now = () => clock;
const logged: string[] = [];
const logger = { warn: (o: object, m?: string) => void logged.push(`${m} ${JSON.stringify(o)}`) };
/** What a check's record writes beside Postgres: the redirect's record, and a wake of the relay. */
const recordDeps = () => ({
  records: new RedirectRecords(redis, { warn: () => {} }),
  onEventsWritten: () => {},
});

function scheduler(opts: { checksPerSecond?: number; concurrency?: number; redis?: Redis } = {}) {
  return new HealthScheduler({
    prisma,
    ...recordDeps(),
    slots: new SiteSlots(opts.redis ?? redis, { checksPerSecond: opts.checksPerSecond ?? 1000 }),
    checker,
    concurrency: opts.concurrency ?? 10,
    logger,
    now,
    pollMs: 50,
  });
}

beforeAll(async () => {
  database = await createMigratedDatabase("health_schedule");
  prisma = createPrisma(database.url);
  prefix = uniquePrefix("health-schedule");
  redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
  checker = new DestinationChecker({
    allowHosts: Array.from({ length: 40 }, (_, i) => [`s${i}.test`, `a.s${i}.test`, `b.s${i}.test`]).flat(),
    resolve,
    timeoutMs: 3_000,
    now,
  });
});

afterAll(async () => {
  await checker?.close();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  redis?.disconnect();
  if (prefix) await cleanupRedisPrefix(testRedisUrl(), prefix);
  await prisma?.$disconnect();
  await database?.drop();
});

beforeEach(async () => {
  // Each test starts with nothing due: earlier tests' links are put out of reach.
  await poolOf(prisma).query("UPDATE link_health_schedule SET next_check_at = NULL");
  seen = [];
  inFlight = new Map();
  maxInFlight = new Map();
  clock += 30 * DAY;
});

async function newLink(accountId: string, host: string, extra: Record<string, unknown> = {}) {
  const path = `/${uniqueAlias("p")}`;
  const link = await prisma.link.create({
    data: {
      accountId,
      shortCode: uniqueAlias("hs"),
      originalUrl: `http://${host}:${port}${path}`,
      title: "t",
      ...extra,
    },
  });
  return { id: link.id, path };
}

const checksOf = (path: string) => seen.filter((s) => s.path === path).length;

describe("HealthScheduler", () => {
  it("checks links never checked, then each again one interval (daily by default) after its check", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-daily");
    const link = await newLink(account_id, "s1.test");
    const s = scheduler();
    expect(await s.tick()).toEqual({ checked: 1, passed: 0, deferred: 0, failed: 0 });
    expect(checksOf(link.path)).toBe(1);
    const row = await prisma.linkHealth.findUnique({ where: { linkId: link.id } });
    expect(row).toMatchObject({ state: "ok", accountId: account_id, checkedAt: new Date(clock) });

    expect((await s.tick()).checked).toBe(0);
    clock += DAY - 1;
    expect((await s.tick()).checked).toBe(0);
    clock += 1;
    expect((await s.tick()).checked).toBe(1);
    expect(checksOf(link.path)).toBe(2);
  });

  it("follows the workspace's interval: hourly, weekly, and off stops the checks until it is on again", async () => {
    const hourly = (await createTestAccount(prisma, "hs-hourly")).account_id;
    const weekly = (await createTestAccount(prisma, "hs-weekly")).account_id;
    await updateAccount(prisma, hourly, { health_check_interval: "hourly" }, KEY_LIMITS);
    await updateAccount(prisma, weekly, { health_check_interval: "weekly" }, KEY_LIMITS);
    const h = await newLink(hourly, "s2.test");
    const w = await newLink(weekly, "s3.test");
    const s = scheduler();
    expect((await s.tick()).checked).toBe(2);
    clock += HOUR;
    expect((await s.tick()).checked).toBe(1);
    expect([checksOf(h.path), checksOf(w.path)]).toEqual([2, 1]);
    clock += 7 * DAY;
    await s.tick();
    expect([checksOf(h.path), checksOf(w.path)]).toEqual([3, 2]);

    // Off: nothing of the workspace is checked, however long; on again: due one interval after the
    // last check (here long past).
    await updateAccount(prisma, hourly, { health_check_interval: "off" }, KEY_LIMITS);
    const fresh = await newLink(hourly, "s4.test");
    clock += 30 * DAY;
    const off = await s.tick();
    expect(checksOf(h.path)).toBe(3);
    expect(checksOf(fresh.path)).toBe(0);
    expect(off.passed).toBe(1); // the new link, claimed once and left unscheduled
    expect(
      (
        await poolOf(prisma).query("SELECT next_check_at FROM link_health_schedule WHERE link_id = $1", [
          fresh.id,
        ])
      ).rows[0].next_check_at,
    ).toBeNull();
    await updateAccount(prisma, hourly, { health_check_interval: "daily" }, KEY_LIMITS);
    await s.tick();
    expect([checksOf(h.path), checksOf(fresh.path)]).toEqual([4, 1]);
  });

  it("does not check disabled, expired or used-up links, and a deleted link leaves the schedule", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-inactive");
    const disabled = await newLink(account_id, "s5.test", { isActive: false });
    const expired = await newLink(account_id, "s6.test", { expiresAt: new Date(clock - 1) });
    const usedUp = await newLink(account_id, "s7.test", { maxClicks: 3, clicksCount: 3n });
    const live = await newLink(account_id, "s8.test", { expiresAt: new Date(clock + DAY) });
    const s = scheduler();
    expect(await s.tick()).toEqual({ checked: 1, passed: 3, deferred: 0, failed: 0 });
    expect(seen.map((r) => r.path)).toEqual([live.path]);
    // Enabled again: checked within an interval.
    await prisma.link.update({ where: { id: disabled.id }, data: { isActive: true } });
    clock += DAY;
    await s.tick();
    expect(checksOf(disabled.path)).toBe(1);
    expect(checksOf(expired.path) + checksOf(usedUp.path)).toBe(0);
    await prisma.link.delete({ where: { id: live.id } });
    expect(await prisma.linkHealthSchedule.count({ where: { linkId: live.id } })).toBe(0);
  });

  it("two schedulers never check one link twice in a round", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-pair");
    const links = await Promise.all(
      Array.from({ length: 20 }, (_, i) => newLink(account_id, `s${10 + i}.test`)),
    );
    const [one, two] = [scheduler({ concurrency: 7 }), scheduler({ concurrency: 7 })];
    let checked = 0;
    for (let round = 0; round < 4; round++) {
      const [a, b] = await Promise.all([one.tick(), two.tick()]);
      checked += a.checked + b.checked;
    }
    expect(checked).toBe(20);
    expect(links.map((l) => checksOf(l.path))).toEqual(links.map(() => 1));
  });

  it("two schedulers keep a site to one check at a time, starts at least a second apart", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-polite");
    // One site (s30.test) under two host names, and five links on it.
    const links = await Promise.all(
      ["a.s30.test", "b.s30.test", "a.s30.test", "b.s30.test", "s30.test"].map((h) => newLink(account_id, h)),
    );
    const [one, two] = [scheduler(), scheduler()];
    const started = Date.now();
    for (let round = 0; round < 30 && seen.length < links.length; round++) {
      await Promise.all([one.tick(), two.tick()]);
      clock += 2_000; // a link put back for its busy site is due again a little later
    }
    expect(links.map((l) => checksOf(l.path))).toEqual([1, 1, 1, 1, 1]);
    expect(maxInFlight.get("s30.test")).toBe(1);
    const arrivals = seen.map((r) => r.at).sort((x, y) => x - y);
    for (let i = 1; i < arrivals.length; i++)
      expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
    expect(one.totals.deferred + two.totals.deferred).toBeGreaterThan(0);
  });

  it("keeps to the global budget of checks per second", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-budget");
    // 16 links on 16 sites at 5 a second need four of Redis's seconds: two whole seconds at least.
    await Promise.all(Array.from({ length: 16 }, (_, i) => newLink(account_id, `b.s${i}.test`)));
    const s = scheduler({ checksPerSecond: 5, concurrency: 16 });
    const started = Date.now();
    expect((await s.tick()).checked).toBe(16);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it("survives Redis and Postgres failing: nothing checked, the links due again later", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-down");
    const link = await newLink(account_id, "s39.test");
    const deadRedis = new Redis("redis://127.0.0.1:1", {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      lazyConnect: true,
    });
    deadRedis.on("error", () => {});
    const broken = scheduler({ redis: deadRedis });
    expect(await broken.tick()).toMatchObject({ checked: 0, failed: 1 });
    expect(checksOf(link.path)).toBe(0);
    deadRedis.disconnect();
    expect((await scheduler().tick()).checked).toBe(0); // put back a minute on
    clock += 60_000;
    expect((await scheduler().tick()).checked).toBe(1);

    // Postgres unreachable: the running loop logs and keeps going; stop() still ends it.
    const nowhere = createPrisma("postgresql://postgres@127.0.0.1:1/nowhere");
    const lost = new HealthScheduler({
      prisma: nowhere,
      ...recordDeps(),
      slots: new SiteSlots(redis),
      checker,
      concurrency: 2,
      logger,
      now,
      pollMs: 20,
    });
    logged.length = 0;
    lost.start();
    const until = Date.now() + 5_000;
    while (logged.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await lost.stop();
    await nowhere.$disconnect().catch(() => {});
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged[0]).toMatch(/claim failed/);
  });

  it("HEALTH_SCHEDULE=off gives no scheduler; on (the default) gives one with the settings", () => {
    const deps = { prisma, ...recordDeps(), slots: new SiteSlots(redis), checker, logger };
    expect(healthSchedulerFrom(loadManagementConfig({ HEALTH_SCHEDULE: "off" }), deps)).toBeNull();
    expect(healthSchedulerFrom(loadManagementConfig({}), deps)).toBeInstanceOf(HealthScheduler);
    expect(() => loadManagementConfig({ HEALTH_SCHEDULE: "sometimes" })).toThrow(/HEALTH_SCHEDULE/);
    expect(() => loadManagementConfig({ HEALTH_CHECKS_PER_SECOND: "0" })).toThrow(/HEALTH_CHECKS_PER_SECOND/);
  });

  it("runs on its own once started and stops cleanly", async () => {
    const { account_id } = await createTestAccount(prisma, "hs-loop");
    const links = await Promise.all([newLink(account_id, "s36.test"), newLink(account_id, "s37.test")]);
    const s = scheduler();
    s.start();
    const until = Date.now() + 5_000;
    while (s.totals.checked < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await s.stop();
    expect(links.map((l) => checksOf(l.path))).toEqual([1, 1]);
  });
});
