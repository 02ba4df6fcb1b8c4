// Everything the analytics process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes), and the in-process test stack (@kurz/testing/stack) calls it directly.
import { createServer } from "node:http";
import { createServiceBus, type Logger, listen, type StartedService } from "@kurz/service-kit";
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
  const app = createAnalyticsApp({
    ch,
    links,
    logger,
    internalToken: config.INTERNAL_TOKEN,
    readiness: { clickhouse: () => ch.ping(), bus: () => bus.ping() },
  });
  // The API answers from ClickHouse alone, so it listens before the consumers have joined their
  // groups. On Kafka a restarted consumer's join waits for its killed predecessor's session to time
  // out: seconds in which the analytics API would be down after a crash if it waited, though nothing
  // it answers depends on the join. The consumers start from the earliest unconsumed message (the
  // bus's default), so nothing published meanwhile is missed; it is counted once they have joined.
  const server = createServer(app);
  await listen(server, config.HOST, config.PORT);
  const subscriptions = await Promise.all([
    subscribeLinks({ bus, ch, logger }),
    subscribeClicks({
      bus,
      ch,
      logger,
      geo: new GeoIp(config.GEOIP_DB_PATH, logger),
      visitors: new VisitorHasher(config.ANALYTICS_SALT_SECRET),
      onInserted: (rows) => totals.touch(rows),
    }),
  ]).catch(async (err: unknown) => {
    // A start that fails leaves nothing listening or open behind it (the in-process test stack).
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await bus.close().catch(() => {});
    await ch.close().catch(() => {});
    throw err;
  });
  totals.start();
  return {
    servers: [server],
    close: async () => {
      for (const s of subscriptions) await s.stop();
      await totals.stop();
      await bus.close();
      await ch.close();
    },
  };
}
