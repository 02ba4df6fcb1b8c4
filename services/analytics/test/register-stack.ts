// Registers this service's in-process start function with @kurz/testing, which may not import services:
// a setup file of every vitest project whose tests start stacks (vitest.stack.ts). The service's code is
// loaded when an in-process stack first starts it, as its main.ts would run it.
import { createLogger } from "@kurz/service-kit";
import { registerInProcessService } from "@kurz/testing/stack-services";

registerInProcessService("analytics", async (env, logs) => {
  const [{ loadAnalyticsConfig }, { startAnalytics }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/service.ts"),
  ]);
  const config = loadAnalyticsConfig(env);
  const logger = createLogger("analytics", config.LOG_LEVEL, logs);
  return { logger, service: await startAnalytics(config, logger) };
});
