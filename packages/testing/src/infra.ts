import { Redis } from "ioredis";
import pg from "pg";

export const DEFAULT_PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export const pgAdminUrl = (): string => process.env.TEST_PG_ADMIN_URL || DEFAULT_PG_ADMIN_URL;
export const testRedisUrl = (): string =>
  process.env.TEST_REDIS_URL || process.env.REDIS_URL || DEFAULT_REDIS_URL;

// Connection failures name the URL without credentials, so a test log never carries a password.
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = "";
    parsed.username = parsed.username ? parsed.username : "";
    return parsed.toString();
  } catch {
    return "(unparseable URL)";
  }
}

export async function ensurePostgres(adminUrl: string = pgAdminUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (err) {
    throw new Error(
      `Postgres is not reachable at ${describeUrl(adminUrl)} (${(err as Error).message}). ` +
        "Start it (see infra/ local scripts) or point TEST_PG_ADMIN_URL at a server.",
      { cause: err },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

export async function ensureRedis(url: string = testRedisUrl()): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // Without a listener ioredis reports connection errors as unhandled "error" events.
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(
      `Redis is not reachable at ${describeUrl(url)} (${(err as Error).message}). ` +
        "Start it (see infra/ local scripts) or point TEST_REDIS_URL at a server.",
      { cause: err },
    );
  } finally {
    redis.disconnect();
  }
}
