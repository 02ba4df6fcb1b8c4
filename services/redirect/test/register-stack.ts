// Registers this service's in-process start function with @kurz/testing, which may not import services:
// a setup file of every vitest project whose tests start stacks (vitest.stack.ts). The service's code is
// loaded when an in-process stack first starts it, as its main.ts would run it.
import { createLogger } from "@kurz/service-kit";
import { registerInProcessService } from "@kurz/testing/stack-services";

registerInProcessService("redirect", async (env, logs) => {
  const [{ loadRedirectConfig }, { startRedirect }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/service.ts"),
  ]);
  const config = loadRedirectConfig(env);
  const logger = createLogger("redirect", config.LOG_LEVEL, logs);
  return { logger, service: await startRedirect(config, logger) };
});
