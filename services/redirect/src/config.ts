import { commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

export const redirectConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8082),
  MANAGEMENT_URL: z.url().default("http://127.0.0.1:8081"),
  REDIRECT_STATUS: z.coerce
    .number()
    .refine((n) => [301, 302, 307, 308].includes(n), "must be 301, 302, 307 or 308")
    .default(302),
  // false | true (one proxy) | the number of trusted proxies in front of this service
  TRUST_PROXY: z
    .string()
    .default("false")
    .refine((v) => /^(true|false|\d{1,2})$/.test(v), "must be true, false or a number of proxy hops")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v))),
  SPOOL_DIR: z.string().default("./.data/spool"),
  CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(100_000),
  CACHE_TTL_MS: z.coerce.number().int().positive().default(5_000),
});
export type RedirectConfig = z.infer<typeof redirectConfigSchema>;

export const loadRedirectConfig = (env = process.env): RedirectConfig =>
  loadConfig(redirectConfigSchema, env);
