import { booleanFlag, commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

export const managementConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  DATABASE_URL: z.string().default("postgresql://postgres@127.0.0.1:5432/kurz"),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(200),
  // Limits given to each API key when it is created; the gateway enforces the values stored on the key.
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  RATE_LIMIT_PER_HOUR: z.coerce.number().int().positive().default(1000),
  KEY_USAGE_FLUSH_MS: z.coerce.number().int().positive().default(10_000),
  // Title auto-fetch for links created without a title. The allow-list skips the public-address
  // check for the named hosts (comma-separated host names, no ports): meant for tests with a local page.
  TITLE_FETCH_ENABLED: booleanFlag(true),
  TITLE_FETCH_ALLOW_HOSTS: z
    .string()
    .default("")
    .transform((list) =>
      list
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  QR_CACHE_MAX_MB: z.coerce.number().positive().default(32),
});
export type ManagementConfig = z.infer<typeof managementConfigSchema>;

export const loadManagementConfig = (env = process.env): ManagementConfig =>
  loadConfig(managementConfigSchema, env);
