import { commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

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
});
export type AnalyticsConfig = z.infer<typeof analyticsConfigSchema>;

export const loadAnalyticsConfig = (env = process.env): AnalyticsConfig =>
  loadConfig(analyticsConfigSchema, env);
