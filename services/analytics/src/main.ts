import { createServer } from "node:http";
import { createClickHouse, migrate } from "@kurz/clickhouse";
import { createLogger, createServiceBus, listen, runService, startTelemetry } from "@kurz/service-kit";
import { createAnalyticsApp } from "./app.ts";
import { loadAnalyticsConfig } from "./config.ts";
import { subscribeClicks } from "./ingest/clicks.ts";
import { subscribeLinks } from "./ingest/links.ts";

const config = loadAnalyticsConfig();
const logger = createLogger("analytics", config.LOG_LEVEL);
const telemetry = startTelemetry("analytics");

await runService({
  name: "analytics",
  logger,
  telemetry,
  start: async () => {
    const ch = await createClickHouse({
      url: config.CLICKHOUSE_URL,
      path: config.CLICKHOUSE_PATH,
      database: config.CLICKHOUSE_DATABASE,
      username: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
    });
    const { applied } = await migrate(ch);
    if (applied.length > 0) logger.info({ applied }, "ClickHouse migrations applied");
    const bus = createServiceBus(config, "analytics", logger);
    const subscriptions = await Promise.all([subscribeLinks({ bus, ch }), subscribeClicks({ bus, ch })]);
    const app = createAnalyticsApp({
      ch,
      logger,
      internalToken: config.INTERNAL_TOKEN,
      readiness: { clickhouse: () => ch.ping(), bus: () => bus.ping() },
    });
    const server = createServer(app);
    await listen(server, config.HOST, config.PORT);
    return {
      servers: [server],
      close: async () => {
        for (const s of subscriptions) await s.stop();
        await bus.close();
        await ch.close();
      },
    };
  },
});
