// Everything the redirect process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes, V8 flags), and the in-process test stack (@kurz/testing/stack) calls it
// directly.

import { createServer } from "node:http";
import { join } from "node:path";
import type { EventBus } from "@kurz/bus";
import {
  callerToken,
  clientBudgetHash,
  createServiceBus,
  handleHealth,
  type Logger,
  listen,
  reportAuthFailureBudget,
  type StartedService,
} from "@kurz/service-kit";
import { Redis } from "ioredis";
import { createApiForwarder } from "./api-forwarder.ts";
import { spliceApiConnections } from "./api-splice.ts";
import { ClickJournal } from "./click-journal.ts";
import { ClickLimit } from "./click-limit.ts";
import { ClickPublisher } from "./click-publisher.ts";
import { ClickSpool } from "./click-spool.ts";
import { clientIp } from "./client-ip.ts";
import type { RedirectConfig } from "./config.ts";
import { GeoCountry } from "./geo-country.ts";
import { followInvalidations } from "./invalidations.ts";
import { directoryBytes, diskOf, type RedirectMetrics } from "./metrics.ts";
import { MissBudget } from "./miss-budget.ts";
import { createOpsHandler } from "./ops.ts";
import { OverlaySubmissions } from "./overlay-submissions.ts";
import { PasswordLimiter } from "./password-limiter.ts";
import { HostClassifier } from "./request-host.ts";
import { Resolver } from "./resolver.ts";
import { RotatorTurns } from "./rotator-turns.ts";
import { createRedirectHandler } from "./server.ts";

/** runService's close bound for this service: the publisher may retry the bus for up to 4 s, then spools. */
export const REDIRECT_CLOSE_TIMEOUT_MS = 15_000;

export async function startRedirect(config: RedirectConfig, logger: Logger): Promise<StartedService> {
  // Fail fast instead of queueing while Redis is away: the resolver then asks management.
  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 500,
  });
  redis.on("error", () => {});
  const subscriber = new Redis(config.REDIS_URL, { maxRetriesPerRequest: null });
  subscriber.on("error", () => {});
  const bus = createServiceBus(config, "redirect", logger);
  const resolver = new Resolver({
    redis,
    managementUrl: config.MANAGEMENT_URL,
    internalToken: callerToken(config.INTERNAL_TOKEN, "redirect"),
    maxEntries: config.CACHE_MAX_ENTRIES,
    ttlMs: config.CACHE_TTL_MS,
    missTtlSeconds: config.MISS_CACHE_TTL_SECONDS,
    onUnreadableSmart: (link) =>
      logger.warn({ link }, "a link's smart part is unreadable; it redirects as a plain link to its own URL"),
  });
  followInvalidations(subscriber, resolver, logger);
  const { publisher, journal, spool } = await openClickPipeline(config, bus, logger);
  const health = handleHealth({
    redis: () => redis.ping(),
    bus: () => bus.ping(),
  });
  const geo = GeoCountry.open(config.GEOIP_DB_PATH, logger);
  const limiter = new PasswordLimiter(redis, {
    perClient: config.PASSWORD_MAX_ATTEMPTS,
    perLink: config.PASSWORD_LINK_MAX_ATTEMPTS,
    windowSeconds: config.PASSWORD_WINDOW_SECONDS,
  });
  const missBudget = new MissBudget(redis, config.MISS_BUDGET_PER_MINUTE);
  const handlerFor = publicHandlers(config, {
    redis,
    resolver,
    publisher,
    journal,
    geo,
    logger,
    limiter,
    missBudget,
  });
  const server = createServer(handlerFor(config.TRUST_PROXY));
  if (config.API_UPSTREAM_URL && config.API_SPLICE_PORT > 0) {
    spliceApiConnections(server, {
      host: new URL(config.API_UPSTREAM_URL).hostname,
      port: config.API_SPLICE_PORT,
      firstReadTimeoutMs: server.headersTimeout,
    });
  }
  server.keepAliveTimeout = 65_000;
  // Health, readiness and metrics on a listener of their own, never on the public port (ops.ts).
  const journalDir = journal ? journalDirOf(config) : null;
  const metrics = async (): Promise<RedirectMetrics> => ({
    ...publisher.metrics,
    spoolBytes: spool.bytes,
    spoolMaxBytes: config.SPOOL_MAX_BYTES,
    journalBytes: journalDir ? await directoryBytes(journalDir) : 0,
    spoolDisk: await diskOf(config.SPOOL_DIR),
    caches: resolver.caches().map(([cache, lookup]) => ({ cache, hits: lookup.hits, misses: lookup.misses })),
    refusals: [
      { reason: "miss_budget", count: missBudget.refusals },
      { reason: "password_attempts", count: limiter.refusals },
    ],
  });
  const ops = createServer(createOpsHandler({ health, metrics }));
  await listen(ops, config.OPS_HOST, config.OPS_PORT);
  // A spliced connection's requests that are not the gateway's come back here from the gateway, which
  // appends the address it was told (the PROXY header's) to X-Forwarded-For: one hop more to believe.
  const returned = config.SPLICE_RETURN_PORT > 0 ? createServer(handlerFor(config.TRUST_PROXY + 1)) : null;
  if (returned) {
    await listen(returned, config.SPLICE_RETURN_HOST, config.SPLICE_RETURN_PORT);
  }
  await listen(server, config.HOST, config.PORT);
  return {
    servers: returned ? [server, returned, ops] : [server, ops],
    close: async () => {
      await publisher.close();
      await journal?.close();
      await bus.close();
      subscriber.disconnect();
      redis.disconnect();
    },
  };
}

/**
 * The click pipeline: the journal each turn's clicks are written to before their answers, the spool
 * that holds them while the bus is away, and the publisher. Whatever a previous run on this port left
 * in either is published again first.
 */
async function openClickPipeline(
  config: RedirectConfig,
  bus: EventBus,
  logger: Logger,
): Promise<{ publisher: ClickPublisher; journal: ClickJournal | undefined; spool: ClickSpool }> {
  const spool = await ClickSpool.open({
    dir: config.SPOOL_DIR,
    // Named after the port, so instances sharing a directory (or a host's test stacks) never collide;
    // a restarted instance on the same port replays its predecessor's spool.
    name: `clicks-${config.PORT}.spool`,
    maxBytes: config.SPOOL_MAX_BYTES,
    onError: (err) => logger.error({ err: String(err) }, "click spool write failed"),
  });
  if (spool.pending > 0)
    logger.warn({ spooled: spool.pending }, "replaying clicks spooled by a previous run");
  const journaled = config.CLICK_JOURNAL
    ? await ClickJournal.open({
        dir: journalDirOf(config),
        syncIntervalMs: config.CLICK_JOURNAL_SYNC_MS,
        onError: (err) => logger.error({ err: String(err) }, "click journal write failed"),
      })
    : null;
  const journal = journaled?.journal;
  const publisher = new ClickPublisher({
    bus,
    spool,
    ...(journal ? { journal } : {}),
    logger,
    maxBatch: config.CLICK_BATCH_MAX,
    flushIntervalMs: config.CLICK_FLUSH_MS,
    maxBuffered: config.CLICK_BUFFER_MAX,
  });
  if (journaled && journaled.replay.length > 0) {
    logger.warn({ clicks: journaled.replay.length }, "replaying clicks journaled by a previous run");
    for (const event of journaled.replay) publisher.replay(event);
  }
  return { publisher, journal, spool };
}

/** Per port, like the spool: a restarted instance replays what its predecessor journaled. */
const journalDirOf = (config: RedirectConfig) => join(config.SPOOL_DIR, `journal-${config.PORT}`);

/**
 * The whole public handler, for clients behind `trustProxy` X-Forwarded-For hops. Handlers made here
 * share their limits, budgets and campaigns' turns, so the public listener and the splice's return
 * listener count as one.
 */
function publicHandlers(
  config: RedirectConfig,
  parts: {
    redis: Redis;
    resolver: Resolver;
    publisher: ClickPublisher;
    journal: ClickJournal | undefined;
    geo: GeoCountry;
    logger: Logger;
    limiter: PasswordLimiter;
    missBudget: MissBudget;
  },
) {
  const { redis, resolver, publisher, journal, geo, logger, limiter, missBudget } = parts;
  const clickLimit = new ClickLimit(redis);
  const submissions = new OverlaySubmissions(
    redis,
    {
      perClient: config.OVERLAY_SUBMISSIONS_PER_CLIENT,
      perLink: config.OVERLAY_SUBMISSIONS_PER_LINK,
      windowSeconds: config.OVERLAY_SUBMISSIONS_WINDOW_SECONDS,
    },
    config.MANAGEMENT_URL,
    callerToken(config.INTERNAL_TOKEN, "redirect"),
  );
  const hosts = new HostClassifier(config.PUBLIC_BASE_URL, config.PUBLIC_HOSTS);
  const turns = new RotatorTurns();
  return (trustProxy: number) =>
    createRedirectHandler({
      resolver,
      publisher,
      ...(journal ? { journal } : {}),
      limiter,
      missBudget,
      submissions,
      redirectStatus: config.REDIRECT_STATUS,
      trustProxy,
      hosts,
      turns,
      clickLimit,
      geo,
      ...(config.API_UPSTREAM_URL
        ? {
            forwardApi: createApiForwarder(
              config.API_UPSTREAM_URL,
              (req) => clientIp(req, trustProxy),
              (_req, res, ip) =>
                reportAuthFailureBudget(
                  redis,
                  res,
                  clientBudgetHash(config.INTERNAL_TOKEN, ip ?? ""),
                  config.AUTH_FAILURE_LIMIT_PER_MINUTE,
                ).catch((err: unknown) => logger.warn({ err: String(err) }, "rate limiter unavailable")),
            ),
          }
        : {}),
      logger,
    });
}
