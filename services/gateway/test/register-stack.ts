// Registers this service's in-process start function with @kurz/testing, which may not import services:
// a setup file of every vitest project whose tests start stacks (vitest.stack.ts). The service's code is
// loaded when an in-process stack first starts it, as its main.ts would run it.
import { createLogger } from "@kurz/service-kit";
import { registerInProcessService } from "@kurz/testing/stack-services";

registerInProcessService("gateway", async (env, logs) => {
  const [{ loadGatewayConfig }, { startGateway }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/service.ts"),
  ]);
  const config = loadGatewayConfig(env);
  const logger = createLogger("gateway", config.LOG_LEVEL, logs);
  return { logger, service: await startGateway(config, logger) };
});
