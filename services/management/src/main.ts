import { createLogger, runService, startTelemetry } from "@kurz/service-kit";
import { startManagement } from "./compose.ts";
import { loadManagementConfig } from "./config.ts";

const config = loadManagementConfig();
const logger = createLogger("management", config.LOG_LEVEL);
const telemetry = startTelemetry("management");

await runService({ name: "management", logger, telemetry, start: () => startManagement(config, logger) });
