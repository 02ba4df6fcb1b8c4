import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";

/**
 * A short unique token for one test file's Redis keys, stream and topic names. Only
 * [a-z0-9-] so it is valid in Kafka topic names and needs no escaping in Redis patterns.
 */
export function uniquePrefix(label: string): string {
  const head =
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 24) || "t";
  return `${head}-${randomBytes(5).toString("hex")}`;
}

const GLOB_SPECIAL = /[*?[\]\\]/g;
const SCAN_COUNT = 500;

/** Deletes every key starting with `prefix` (SCAN + UNLINK, never KEYS). Returns how many. */
export async function cleanupRedisPrefix(redisUrl: string, prefix: string): Promise<number> {
  if (prefix === "")
    throw new Error("cleanupRedisPrefix: refusing an empty prefix (it would match every key)");
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  await redis.connect();
  let deleted = 0;
  try {
    const match = `${prefix.replace(GLOB_SPECIAL, "\\$&")}*`;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", match, "COUNT", SCAN_COUNT);
      cursor = next;
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}
