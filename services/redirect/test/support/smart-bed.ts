// Redirect handlers in this process, built from the service's real parts (resolver, click publisher on
// the Redis Streams bus, click limit, GeoIP) on one shared Redis under a prefix of the test's own:
// what tests need that pass their own clock or count across several instances without booting a
// process each. Records are seeded into Redis as management writes them.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBus, type EventBus } from "@kurz/bus";
import { type RedirectRecord, redirectKey } from "@kurz/contracts";
import { cleanupRedisPrefix, testRedisUrl, uniquePrefix } from "@kurz/testing";
import { Redis } from "ioredis";
import { ClickLimit } from "../../src/click-limit.ts";
import { ClickPublisher } from "../../src/click-publisher.ts";
import { ClickSpool } from "../../src/click-spool.ts";
import type { GeoCountry } from "../../src/geo-country.ts";
import { MissBudget } from "../../src/miss-budget.ts";
import { PasswordLimiter } from "../../src/password-limiter.ts";
import { HostClassifier } from "../../src/request-host.ts";
import { Resolver } from "../../src/resolver.ts";
import { createRedirectHandler } from "../../src/server.ts";
import { type ClickObserver, observeClicks } from "./click-observer.ts";
import { type FakeManagement, startFakeManagement } from "./fake-management.ts";

export interface SmartBedOptions {
  name: string;
  instances?: number;
  geo?: GeoCountry;
  trustProxy?: number;
  /** The click limit's Redis for every instance (a dead one, to test the outage); the shared one else. */
  clickLimitRedis?: Redis;
}

export interface SmartBed {
  /** Each instance's base URL. */
  urls: string[];
  url: string;
  /** The clock every instance reads; tests set `now`. */
  clock: { now: number };
  redis: Redis;
  clicks: ClickObserver;
  seed(code: string, record: RedirectRecord): Promise<void>;
  warnings: object[];
  stop(): Promise<void>;
}

export async function startSmartBed(opts: SmartBedOptions): Promise<SmartBed> {
  const prefix = uniquePrefix(opts.name);
  const token = `token-${prefix}`;
  const dir = mkdtempSync(join(tmpdir(), "kurz-smart-bed-"));
  const clock = { now: Date.parse("2030-06-15T12:00:00.000Z") };
  const warnings: object[] = [];
  const logger = {
    error: (o: object, m?: string) => warnings.push({ level: "error", ...o, m }),
    warn: (o: object, m?: string) => warnings.push({ level: "warn", ...o, m }),
  };
  const undo: (() => unknown)[] = [() => rmSync(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const fn of undo.splice(0).reverse()) await fn();
  };
  try {
    undo.push(() => cleanupRedisPrefix(testRedisUrl(), prefix));
    const mgmt: FakeManagement = await startFakeManagement(token);
    undo.push(() => mgmt.close());
    const redis = new Redis(testRedisUrl(), { keyPrefix: `${prefix}:` });
    undo.push(() => redis.disconnect());
    const clicks = await observeClicks({ prefix, redisUrl: testRedisUrl() });
    undo.push(() => clicks.stop());
    const hosts = new HostClassifier("http://127.0.0.1");
    const urls: string[] = [];
    for (let i = 0; i < (opts.instances ?? 1); i++) {
      const own = new Redis(testRedisUrl(), {
        keyPrefix: `${prefix}:`,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
      });
      undo.push(() => own.disconnect());
      await new Promise((resolve) => own.once("ready", resolve));
      const bus: EventBus = createBus({
        kind: "redis",
        clientId: `smart-bed-${i}`,
        prefix,
        redisUrl: testRedisUrl(),
      });
      undo.push(() => bus.close());
      const spool = await ClickSpool.open({ dir, name: `clicks-${i}.spool`, maxBytes: 10_000_000 });
      const publisher = new ClickPublisher({ bus, spool, flushIntervalMs: 20, logger });
      undo.push(() => publisher.close());
      const handler = createRedirectHandler({
        resolver: new Resolver({
          redis: own,
          managementUrl: mgmt.url,
          internalToken: token,
          maxEntries: 1000,
          ttlMs: 60_000,
          onUnreadableSmart: (link) => logger.warn({ link }, "a link's smart part is unreadable"),
        }),
        publisher,
        limiter: new PasswordLimiter(own, { perClient: 5, perLink: 100, windowSeconds: 60 }),
        missBudget: new MissBudget(own, 1000),
        redirectStatus: 302,
        trustProxy: opts.trustProxy ?? 0,
        hosts,
        clickLimit: new ClickLimit(opts.clickLimitRedis ?? own),
        ...(opts.geo ? { geo: opts.geo } : {}),
        now: () => clock.now,
        logger,
      });
      const server: Server = createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      undo.push(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
    return {
      urls,
      url: urls[0]!,
      clock,
      redis,
      clicks,
      warnings,
      seed: async (code, record) => {
        await redis.set(redirectKey(code), JSON.stringify(record));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
