// Everything the management process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes), and the in-process test stack (@kurz/testing/stack) calls it directly.
import { createServer } from "node:http";
import { createPrisma, type PrismaClient } from "@kurz/db";
import {
  createOpsServer,
  createServiceBus,
  type Logger,
  listen,
  type StartedService,
  withRequestMetrics,
} from "@kurz/service-kit";
import { Redis } from "ioredis";
import { createManagementListener } from "./app.ts";
import { AuditPrune } from "./audit/prune-audit-events.ts";
import type { ManagementConfig } from "./config.ts";
import { OutboxRelay } from "./db/outbox.ts";
import { createTxtLookup } from "./domains/domain-verification.ts";
import { healthDepsFrom } from "./health/health-routes-deps.ts";
import { healthSchedulerFrom } from "./health/scheduler-from-config.ts";
import { SiteSlots } from "./health/site-slots.ts";
import { PasswordHashPool } from "./imports/password-hash-pool.ts";
import { importWorkerFrom } from "./imports/worker-from-config.ts";
import { keyLimitsFrom } from "./keys/api-keys.ts";
import { KeyUsageFlusher } from "./keys/key-usage-flusher.ts";
import { subscribeClickTotals } from "./links/click-totals.ts";
import { QrRenderer } from "./links/qr-renderer.ts";
import { retiredCodeGraceMs as graceOf, startRetiredCodePurge } from "./links/retired-codes.ts";
import { createMailer } from "./mail/mailer.ts";
import { managementMetrics } from "./metrics.ts";
import { startFrameRefresh } from "./overlays/frame-refresher.ts";
import { DomainAndRotatorRecords } from "./projections/domain-and-rotator-records.ts";
import { RedirectRecords } from "./projections/link-records.ts";
import { startSessionPrune } from "./sessions/prune-sessions.ts";
import { HOUR_MS } from "./sessions/sessions.ts";
import { signinLimitsFrom } from "./sessions/signin-limits.ts";
import { ssoSettingsFrom } from "./sso/sso-settings.ts";
import { type TitleFetcher, titleFetcherFrom } from "./titles/title-fetcher.ts";
import { SecretBox } from "./webhooks/secrets.ts";
import { startWebhooks } from "./webhooks/start.ts";

export async function startManagement(config: ManagementConfig, logger: Logger): Promise<StartedService> {
  const prisma = createPrisma(config.DATABASE_URL);
  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    maxRetriesPerRequest: 2,
  });
  redis.on("error", () => {});
  const bus = createServiceBus(config, "management", logger);
  const relay = new OutboxRelay(prisma, bus, { pollMs: config.OUTBOX_POLL_MS, logger });
  const titles = titleFetcherFrom(config);
  // One set of site slots for the checks on demand and the scheduled ones: politeness counts both.
  const slots = new SiteSlots(redis, { checksPerSecond: config.HEALTH_CHECKS_PER_SECOND });
  const health = healthDepsFrom(config, slots);
  const retiredCodeGraceMs = graceOf(config);
  const webhooks = startWebhooks(config, { prisma, bus, logger });
  const domainAndRotatorRecords = new DomainAndRotatorRecords(redis, logger);
  const records = new RedirectRecords(redis, logger, config.PUBLIC_BASE_URL);
  const healthSchedule = healthSchedulerFrom(config, {
    prisma,
    records,
    onEventsWritten: () => relay.wake(),
    slots,
    checker: health.checker,
    logger,
  });
  const hashes = new PasswordHashPool(config.IMPORT_HASH_THREADS);
  const imports = importWorkerFrom(config, {
    prisma,
    redis,
    records,
    titles,
    hashes,
    onEventsWritten: () => relay.wake(),
    retiredCodeGraceMs,
    logger,
  });
  const mailer = createMailer({
    SMTP_URL: config.SMTP_URL,
    MAIL_FROM: config.MAIL_FROM ?? `Kurz <no-reply@${new URL(config.PUBLIC_BASE_URL).hostname}>`,
  });
  const sso = ssoSettingsFrom(config);
  const readiness = {
    postgres: () => prisma.$queryRaw`SELECT 1`,
    redis: () => redis.ping(),
    bus: () => bus.ping(),
  };
  const metrics = managementMetrics({ prisma, bus, webhooks: webhooks.dispatcher });
  const app = createManagementListener({
    prisma,
    records,
    titles,
    health,
    redis,
    keyLimits: keyLimitsFrom(config),
    qr: new QrRenderer(config.QR_CACHE_MAX_MB * 1024 * 1024),
    domainAndRotatorRecords,
    domainTxtLookup: createTxtLookup({ servers: config.DNS_SERVERS }),
    logger,
    internalToken: config.INTERNAL_TOKEN,
    adminToken: config.ADMIN_TOKEN,
    baseUrl: config.PUBLIC_BASE_URL,
    publicHosts: config.PUBLIC_HOSTS,
    readiness,
    onEventsWritten: () => relay.wake(),
    retiredCodeGraceMs,
    onImportQueued: () => imports.wake(),
    signup: config.SIGNUP,
    // An idle lifetime longer than the absolute one would never be reached.
    sessionTtlMs: Math.min(config.SESSION_TTL_HOURS, config.SESSION_MAX_AGE_DAYS * 24) * HOUR_MS,
    sessionMaxAgeMs: config.SESSION_MAX_AGE_DAYS * 24 * HOUR_MS,
    signinLimits: signinLimitsFrom(config),
    webhooks: webhooks.endpointDeps,
    mailer,
    totpSecrets: new SecretBox(config.WEBHOOK_SECRETS_KEY, "totp"),
    sso,
  });
  const server = createServer(withRequestMetrics(metrics, app));
  // Health, readiness and metrics on a listener of their own, never on the public port (ops.ts).
  const ops = createOpsServer({ readiness, metrics });
  await listen(ops, config.OPS_HOST, config.OPS_PORT);
  await listen(server, config.HOST, config.PORT);
  relay.start();
  // Records of domains that never verified (e.g. rows from before verification) must not serve.
  domainAndRotatorRecords
    .removeUnverifiedDomains(prisma)
    .catch((err: unknown) => logger.warn({ err: String(err) }, "unverified domain records not purged"));
  await subscribeClickTotals({ bus, prisma, logger }); // stopped by bus.close()
  await webhooks.start(); // its subscriptions are stopped by bus.close()
  const keyUsage = new KeyUsageFlusher(prisma, redis, { intervalMs: config.KEY_USAGE_FLUSH_MS, logger });
  keyUsage.start();
  imports.start();
  const stopHousekeeping = startHousekeeping(config, { prisma, titles, records, logger });
  healthSchedule?.start();
  return {
    servers: [server, ops],
    close: async () => {
      await stopHousekeeping();
      // The pool closes as soon as the worker stops claiming: a batch's hashes still queued are
      // dropped (the batch was not committed, so its job resumes before it) instead of awaited.
      const importsStopped = imports.stop();
      await hashes.close();
      await importsStopped;
      await relay.stop();
      await webhooks.stop();
      await titles.close();
      await healthSchedule?.stop();
      await health.close();
      await sso.clients.close();
      await keyUsage.stop();
      await bus.close();
      mailer?.close();
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}

/**
 * The periodic clean-ups: retired codes past their grace, overlays' frame checks, ended sessions and
 * old audit events. The function returned stops them (an audit prune under way finishes first).
 */
function startHousekeeping(
  config: ManagementConfig,
  deps: { prisma: PrismaClient; titles: TitleFetcher; records: RedirectRecords; logger: Logger },
): () => Promise<void> {
  const { prisma, titles, records, logger } = deps;
  const stopPurge = startRetiredCodePurge(prisma, graceOf(config), { logger });
  const stopFrameRefresh = startFrameRefresh(prisma, titles, records, {
    intervalMs: config.FRAME_CHECK_INTERVAL_MS,
    maxAgeMs: config.FRAME_CHECK_MAX_AGE_HOURS * 3_600_000,
    logger,
  });
  const stopSessionPrune = startSessionPrune(prisma, { logger });
  const auditPrune = new AuditPrune(prisma, { logger });
  auditPrune.start();
  return async () => {
    stopPurge();
    stopFrameRefresh();
    stopSessionPrune();
    await auditPrune.stop();
  };
}
