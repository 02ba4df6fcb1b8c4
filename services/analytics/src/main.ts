import { CHDB_LIBRARY_FILE } from "@kurz/clickhouse";
import { createLogger, runService, startTelemetry } from "@kurz/service-kit";
import { loadAnalyticsConfig } from "./config.ts";
import { startAnalytics } from "./service.ts";

const config = loadAnalyticsConfig();
const logger = createLogger("analytics", config.LOG_LEVEL);
const telemetry = startTelemetry("analytics");

await runService({
  name: "analytics",
  logger,
  telemetry,
  start: () => startAnalytics(config, logger),
  // Embedded chDB's ~540 MB library: its start runs through code the engine does not run again.
  pageOutAfterStart: config.CLICKHOUSE_URL ? [] : [CHDB_LIBRARY_FILE],
});
