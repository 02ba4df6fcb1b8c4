import type { Redis } from "ioredis";
import type { CrashLedger } from "../deliver-batch.ts";

/**
 * A group's crashes while handling one entry alone: a hash beside the stream, entry id → count. An
 * id stays only while its entry is pending after such a crash, so the hash holds a handful at most.
 */
export function redisCrashLedger(redis: Redis, stream: string, group: string): CrashLedger {
  const key = `${stream}:${group}:solo-crashes`;
  return {
    count: async (id) => Number((await redis.hget(key, id)) ?? 0),
    mark: async (id) => void (await redis.hincrby(key, id, 1)),
    clear: async (id) => void (await redis.hdel(key, id)),
  };
}
