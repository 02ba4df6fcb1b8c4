// Everything the gateway process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes), and the in-process test stack (@kurz/testing/stack) calls it directly.
import { createServer } from "node:http";
import { acceptProxyProtocol, type Logger, listen, type StartedService } from "@kurz/service-kit";
import { Redis } from "ioredis";
import { ApiKeys } from "./api-keys.ts";
import { createGatewayApp } from "./app.ts";
import type { GatewayConfig } from "./config.ts";
import { KeyUsageRecorder } from "./key-usage.ts";
import { RateLimiter } from "./rate-limit.ts";
import { Sessions } from "./sessions.ts";

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<StartedService> {
  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    maxRetriesPerRequest: 2,
    // Every API request sends two or three commands (key, failed-auth budget, rate limit); commands of
    // concurrent requests issued in one turn of the event loop go out in one write (decision 0044).
    enableAutoPipelining: true,
  });
  redis.on("error", () => {});
  const keyUsage = new KeyUsageRecorder(redis);
  keyUsage.start();
  const app = createGatewayApp({
    config,
    logger,
    keys: new ApiKeys(redis, {
      managementUrl: config.MANAGEMENT_URL,
      internalSecret: config.INTERNAL_TOKEN,
      ttlSeconds: config.KEY_CACHE_TTL_SECONDS,
    }),
    sessions: new Sessions(redis, {
      managementUrl: config.MANAGEMENT_URL,
      internalSecret: config.INTERNAL_TOKEN,
      cacheTtlSeconds: config.SESSION_CACHE_TTL_SECONDS,
    }),
    limiter: new RateLimiter(redis),
    keyUsage,
    readiness: { redis: () => redis.ping() },
  });
  const server = createServer(app);
  // The splice listener (decision 0038): the same app, after a PROXY header per connection.
  const spliced = config.SPLICE_PORT > 0 ? createServer(app) : null;
  if (spliced) {
    if (!config.SPLICE_RETURN_URL) throw new Error("SPLICE_PORT needs SPLICE_RETURN_URL");
    acceptProxyProtocol(spliced);
    await listen(spliced, config.SPLICE_HOST, config.SPLICE_PORT);
  }
  await listen(server, config.HOST, config.PORT);
  return {
    servers: spliced ? [server, spliced] : [server],
    close: async () => {
      await keyUsage.stop();
      redis.disconnect();
    },
  };
}
