import { createBus, type EventBus } from "@kurz/bus";
import type { CommonConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

/** The service's event bus, as the environment configures it (BUS, REDIS_URL, KAFKA_*, BUS_PREFIX). */
export function createServiceBus(config: CommonConfig, clientId: string, logger: Logger): EventBus {
  return createBus({
    kind: config.BUS,
    clientId,
    prefix: config.BUS_PREFIX,
    redisUrl: config.REDIS_URL,
    kafkaBrokers: config.KAFKA_BROKERS,
    // Consumed entries past this many are trimmed: click events carry raw IPs (docs/analytics.md).
    redis: { maxLen: config.BUS_REDIS_MAX_LEN },
    kafka: {
      sessionTimeout: config.KAFKA_SESSION_TIMEOUT_MS,
      rebalanceTimeout: config.KAFKA_REBALANCE_TIMEOUT_MS,
      heartbeatInterval: config.KAFKA_HEARTBEAT_MS,
    },
    logger,
  });
}
