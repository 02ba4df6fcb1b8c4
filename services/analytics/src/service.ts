// Everything the analytics process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes), and the in-process test stack (@kurz/testing/stack) calls it directly.
import { createServer } from "node:http";
import {
  busLagGauge,
  createOpsServer,
  createServiceBus,
  createServiceMetrics,
  diskGauges,
  Histogram,
  type Logger,
  listen,
  type StartedService,
  withRequestMetrics,
} from "@kurz/service-kit";
import { createAnalyticsApp } from "./app.ts";
import type { AnalyticsConfig } from "./config.ts";
import { GeoIp } from "./enrich/geoip.ts";
import { VisitorHasher } from "./enrich/visitor-hash.ts";
import { ClickTotalsPublisher } from "./ingest/click-totals.ts";
import { subscribeClicks } from "./ingest/clicks.ts";
import { subscribeLinks } from "./ingest/links.ts";
import { ManagementLinks } from "./management-links.ts";
import { openClickHouse } from "./open-clickhouse.ts";

export async function startAnalytics(config: AnalyticsConfig, logger: Logger): Promise<StartedService> {
  const ch = await openClickHouse(config, logger);
  const bus = createServiceBus(config, "analytics", logger);
  const totals = new ClickTotalsPublisher({ bus, ch, logger, intervalMs: config.CLICK_TOTALS_INTERVAL_MS });
  const links = new ManagementLinks({
    managementUrl: config.MANAGEMENT_URL,
    internalToken: config.INTERNAL_TOKEN,
    deletedWindowSeconds: config.DELETED_LINKS_WINDOW_SECONDS,
    logger,
  });
  const readiness = { clickhouse: () => ch.ping(), bus: () => bus.ping() };
  const metrics = createServiceMetrics();
  busLagGauge(metrics, bus);
  // The embedded store's directory; a ClickHouse server's disks are its own to watch.
  if (!config.CLICKHOUSE_URL && config.CLICKHOUSE_PATH)
    diskGauges(metrics, { clickhouse: config.CLICKHOUSE_PATH });
  const insertSeconds = new Histogram({
    name: "clickhouse_click_insert_duration_seconds",
    help: "Time of one successful ClickHouse write of a batch of clicks (rows and rollups).",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [metrics.registry],
  });
  const insertClicks = new Histogram({
    name: "clickhouse_click_insert_batch_clicks",
    help: "Clicks in one ClickHouse write.",
    buckets: [1, 10, 50, 100, 500, 1000, 5000, 20000],
    registers: [metrics.registry],
  });
  const app = createAnalyticsApp({
    ch,
    links,
    logger,
    internalToken: config.INTERNAL_TOKEN,
    readiness,
  });
  // The API answers from ClickHouse alone, so it listens before the consumers have joined their
  // groups. On Kafka a restarted consumer's join waits for its killed predecessor's session to time
  // out: seconds in which the analytics API would be down after a crash if it waited, though nothing
  // it answers depends on the join. The consumers start from the earliest unconsumed message (the
  // bus's default), so nothing published meanwhile is missed; it is counted once they have joined.
  const server = createServer(withRequestMetrics(metrics, app));
  // Health, readiness and metrics on a listener of their own, never on the public port (ops.ts).
  const ops = createOpsServer({ readiness, metrics });
  await listen(ops, config.OPS_HOST, config.OPS_PORT);
  await listen(server, config.HOST, config.PORT).catch(async (err: unknown) => {
    await new Promise<void>((resolve) => ops.close(() => resolve()));
    throw err;
  });
  const subscriptions = await Promise.all([
    subscribeLinks({ bus, ch, logger }),
    subscribeClicks({
      bus,
      ch,
      logger,
      geo: new GeoIp(config.GEOIP_DB_PATH, logger),
      visitors: new VisitorHasher(config.ANALYTICS_SALT_SECRET),
      onInserted: (rows) => totals.touch(rows),
      onWritten: ({ clicks, seconds }) => {
        insertSeconds.observe(seconds);
        insertClicks.observe(clicks);
      },
    }),
  ]).catch(async (err: unknown) => {
    // A start that fails leaves nothing listening or open behind it (the in-process test stack).
    for (const s of [server, ops]) {
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
    await bus.close().catch(() => {});
    await ch.close().catch(() => {});
    throw err;
  });
  totals.start();
  return {
    servers: [server, ops],
    close: async () => {
      for (const s of subscriptions) await s.stop();
      await totals.stop();
      await bus.close();
      await ch.close();
    },
  };
}
