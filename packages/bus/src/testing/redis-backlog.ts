import { Redis } from "ioredis";

/**
 * Whether a consumer group is done with a Redis stream: every entry delivered to it (its last-delivered
 * id is the stream's last id) and every delivery acknowledged (nothing pending). For tests that wait
 * until a consumer has handled all that was published, where a fixed quiet time would only guess.
 */
export function redisGroupDone(redisUrl: string, stream: string, group: string): Promise<boolean> {
  return withRedis(redisUrl, async (redis) => {
    const info = fields((await redis.call("XINFO", "STREAM", stream)) as unknown[]);
    const groups = ((await redis.call("XINFO", "GROUPS", stream)) as unknown[][]).map(fields);
    const mine = groups.find((g) => g.name === group);
    return (
      mine !== undefined && mine["last-delivered-id"] === info["last-generated-id"] && mine.pending === 0
    );
  });
}

/** An XINFO reply's flat [name, value, name, value, ...] list as an object. */
function fields(reply: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = reply[i + 1];
  return out;
}

/** How many entries a Redis stream holds (0 when it does not exist): e.g. a dead-letter topic's. */
export function redisStreamLength(redisUrl: string, stream: string): Promise<number> {
  return withRedis(redisUrl, (redis) => redis.xlen(stream));
}

/** `use` on a connection of its own, closed after. */
async function withRedis<T>(redisUrl: string, use: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  await redis.connect();
  try {
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}
