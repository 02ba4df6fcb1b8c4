// Everything the gateway process runs, as one function: main.ts wraps it in runService (signals,
// telemetry, exit codes), and the in-process test stack (@kurz/testing/stack) calls it directly.
import { createServer } from "node:http";
import {
  acceptProxyProtocol,
  createOpsServer,
  createServiceMetrics,
  type Logger,
  listen,
  type ServiceMetrics,
  type StartedService,
  scrapeCounter,
  withRequestMetrics,
} from "@kurz/service-kit";
import { Redis } from "ioredis";
import { ApiKeys } from "./api-keys.ts";
import { createGatewayApp } from "./app.ts";
import type { GatewayConfig } from "./config.ts";
import { KeyUsageRecorder } from "./key-usage.ts";
import { RateLimiter } from "./rate-limit.ts";
import { createRequestRoute } from "./request-route.ts";
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
  const keys = new ApiKeys(redis, {
    managementUrl: config.MANAGEMENT_URL,
    internalSecret: config.INTERNAL_TOKEN,
    ttlSeconds: config.KEY_CACHE_TTL_SECONDS,
  });
  const refusals = new Map<string, number>();
  const metrics = gatewayMetrics(keys, refusals);
  const readiness = { redis: () => redis.ping() };
  const app = createGatewayApp({
    config,
    logger,
    keys,
    refusals,
    sessions: new Sessions(redis, {
      managementUrl: config.MANAGEMENT_URL,
      internalSecret: config.INTERNAL_TOKEN,
      cacheTtlSeconds: config.SESSION_CACHE_TTL_SECONDS,
    }),
    limiter: new RateLimiter(redis),
    keyUsage,
    readiness,
  });
  const requestRoute = createRequestRoute();
  const observed = withRequestMetrics(metrics, app, requestRoute);
  const server = createServer(observed);
  // The splice listener (decision 0038): the same app, after a PROXY header per connection.
  const spliced = config.SPLICE_PORT > 0 ? createServer(observed) : null;
  if (spliced) {
    if (!config.SPLICE_RETURN_URL) throw new Error("SPLICE_PORT needs SPLICE_RETURN_URL");
    acceptProxyProtocol(spliced);
    await listen(spliced, config.SPLICE_HOST, config.SPLICE_PORT);
  }
  const ops = createOpsServer({ readiness, metrics });
  await listen(ops, config.OPS_HOST, config.OPS_PORT);
  await listen(server, config.HOST, config.PORT);
  return {
    servers: spliced ? [server, spliced, ops] : [server, ops],
    close: async () => {
      await keyUsage.stop();
      redis.disconnect();
    },
  };
}

/** The gateway's own series beside the request histogram (docs/observability.md). */
function gatewayMetrics(keys: ApiKeys, refusals: Map<string, number>): ServiceMetrics {
  const metrics = createServiceMetrics();
  scrapeCounter(metrics, {
    name: "gateway_key_cache_reads_total",
    help: "API key lookups answered from the Redis key cache (result=hit) or asked of management (result=miss).",
    labelNames: ["result"],
    read: () => [
      { labels: { result: "hit" }, value: keys.cacheReads.hit },
      { labels: { result: "miss" }, value: keys.cacheReads.miss },
    ],
  });
  scrapeCounter(metrics, {
    name: "gateway_rate_limit_refusals_total",
    help: "Requests refused 429 because a rate-limit window was spent, by window.",
    labelNames: ["window"],
    read: () => [...refusals].map(([window, value]) => ({ labels: { window }, value })),
  });
  return metrics;
}
