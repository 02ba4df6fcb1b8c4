// Redis for a one-shot command (`./kurz import`, `accounts:update`, `import clicks`): asked once, up
// front, so that a command never waits out every write's retries against a Redis that is down. Each
// command says what it does without it; none needs it to do its main work.
import { Redis } from "ioredis";
import type { ManagementConfig } from "./config.ts";

export interface CliRedis {
  redis: Redis;
  /** Whether it answered; when false, `redis` is closed and must not be used. */
  reachable: boolean;
}

export async function connectCliRedis(config: ManagementConfig): Promise<CliRedis> {
  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
    retryStrategy: (attempt) => (attempt > 3 ? null : 200 * attempt),
  });
  // Failures are reported by connect() and by each command, not as unhandled 'error' events.
  redis.on("error", () => {});
  const reachable = await redis.connect().then(
    () => true,
    () => false,
  );
  if (!reachable) redis.disconnect();
  return { redis, reachable };
}
