import { createLogger, runService, startTelemetry } from "@kurz/service-kit";
import { loadGatewayConfig } from "./config.ts";
import { startGateway } from "./service.ts";

const config = loadGatewayConfig();
const logger = createLogger("gateway", config.LOG_LEVEL);
const telemetry = startTelemetry("gateway");

await runService({ name: "gateway", logger, telemetry, start: () => startGateway(config, logger) });
