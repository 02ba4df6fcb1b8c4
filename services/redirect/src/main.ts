import { setFlagsFromString } from "node:v8";
import { createLogger, runService, startTelemetry } from "@kurz/service-kit";
import { loadRedirectConfig } from "./config.ts";
import { REDIRECT_CLOSE_TIMEOUT_MS, startRedirect } from "./service.ts";

const config = loadRedirectConfig();
// Read by V8 at every full GC, so setting it here, before the load, is as good as a node flag.
if (config.HEAP_GROWING_PERCENT > 0)
  setFlagsFromString(`--heap-growing-percent=${config.HEAP_GROWING_PERCENT}`);
const logger = createLogger("redirect", config.LOG_LEVEL);
const telemetry = startTelemetry("redirect");

await runService({
  name: "redirect",
  logger,
  telemetry,
  closeTimeoutMs: REDIRECT_CLOSE_TIMEOUT_MS,
  start: () => startRedirect(config, logger),
});
