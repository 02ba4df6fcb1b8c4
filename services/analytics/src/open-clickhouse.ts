// ClickHouse as the configuration names it (a server at CLICKHOUSE_URL, else embedded chDB at
// CLICKHOUSE_PATH), migrated before anything reads or writes it.
import { createClickHouse, type KurzClickHouse, migrate } from "@kurz/clickhouse";
import type { Logger } from "@kurz/service-kit";
import type { AnalyticsConfig } from "./config.ts";

/** CHDB_MEMORY_MB shared out: the whole engine, half of it for one query, a thirty-second per cache. */
export const chdbLimits = (engineMb: number) => ({
  engineMb,
  queryMb: Math.floor(engineMb / 2),
  cacheMb: Math.max(4, Math.floor(engineMb / 32)),
});

export async function openClickHouse(config: AnalyticsConfig, logger?: Logger): Promise<KurzClickHouse> {
  const ch = await createClickHouse({
    url: config.CLICKHOUSE_URL,
    path: config.CLICKHOUSE_PATH,
    database: config.CLICKHOUSE_DATABASE,
    username: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    ...(config.CHDB_MEMORY_MB > 0 && { memory: chdbLimits(config.CHDB_MEMORY_MB) }),
  });
  try {
    const { applied, views } = await migrate(ch);
    if (applied.length > 0 || views.length > 0)
      logger?.info({ applied, views }, "ClickHouse migrations applied");
    return ch;
  } catch (err) {
    await ch.close();
    throw err;
  }
}
