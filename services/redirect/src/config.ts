import { commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

export const redirectConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8082),
  MANAGEMENT_URL: z.url().default("http://127.0.0.1:8081"),
  REDIRECT_STATUS: z.coerce
    .number()
    .refine((n) => [301, 302, 307, 308].includes(n), "must be 301, 302, 307 or 308")
    .default(302),
  TRUST_PROXY: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  SPOOL_DIR: z.string().default("./.data/spool"),
  CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(100_000),
  CACHE_TTL_MS: z.coerce.number().int().positive().default(5_000),
});
export type RedirectConfig = z.infer<typeof redirectConfigSchema>;

export const loadRedirectConfig = (env = process.env): RedirectConfig =>
  loadConfig(redirectConfigSchema, env);
