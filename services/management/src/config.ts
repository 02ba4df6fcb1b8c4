import { commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

export const managementConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  DATABASE_URL: z.string().default("postgresql://postgres@127.0.0.1:5432/kurz"),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(200),
});
export type ManagementConfig = z.infer<typeof managementConfigSchema>;

export const loadManagementConfig = (env = process.env): ManagementConfig =>
  loadConfig(managementConfigSchema, env);
