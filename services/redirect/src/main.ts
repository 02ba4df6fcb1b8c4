import { createServer } from "node:http";
import { INVALIDATION_CHANNEL } from "@kurz/contracts";
import {
  createLogger,
  createServiceBus,
  handleHealth,
  listen,
  runService,
  startTelemetry,
} from "@kurz/service-kit";
import { Redis } from "ioredis";
import { ClickPublisher } from "./click-publisher.ts";
import { loadRedirectConfig } from "./config.ts";
import { Resolver } from "./resolver.ts";
import { createRedirectHandler } from "./server.ts";

const config = loadRedirectConfig();
const logger = createLogger("redirect", config.LOG_LEVEL);
const telemetry = startTelemetry("redirect");

await runService({
  name: "redirect",
  logger,
  telemetry,
  start: async () => {
    // Fail fast instead of queueing while Redis is away: the resolver then asks management.
    const redis = new Redis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
    });
    redis.on("error", () => {});
    const subscriber = new Redis(config.REDIS_URL, {
      keyPrefix: config.REDIS_KEY_PREFIX,
      maxRetriesPerRequest: null,
    });
    subscriber.on("error", () => {});
    const bus = createServiceBus(config, "redirect", logger);
    const resolver = new Resolver({
      redis,
      managementUrl: config.MANAGEMENT_URL,
      internalToken: config.INTERNAL_TOKEN,
      maxEntries: config.CACHE_MAX_ENTRIES,
      ttlMs: config.CACHE_TTL_MS,
    });
    // Edits and deletes reach every instance at once; the TTL bounds staleness if a message is missed.
    await subscriber.subscribe(INVALIDATION_CHANNEL);
    subscriber.on("message", (_channel: string, code: string) => resolver.invalidate(code));

    const publisher = new ClickPublisher({ bus, logger });
    const health = handleHealth({
      redis: () => redis.ping(),
      bus: () => bus.ping(),
    });
    const server = createServer(
      createRedirectHandler({
        resolver,
        publisher,
        redirectStatus: config.REDIRECT_STATUS,
        trustProxy: config.TRUST_PROXY,
        health,
        logger,
      }),
    );
    server.keepAliveTimeout = 65_000;
    await listen(server, config.HOST, config.PORT);
    return {
      servers: [server],
      close: async () => {
        await publisher.close();
        await bus.close();
        subscriber.disconnect();
        redis.disconnect();
      },
    };
  },
});
