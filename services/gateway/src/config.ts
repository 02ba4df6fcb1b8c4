import { AUTH_FAILURE_LIMIT_DEFAULT, commonConfigSchema, loadConfig } from "@kurz/service-kit";
import { z } from "zod";

const optionalUrl = z
  .string()
  .default("")
  .refine((s) => s === "" || URL.canParse(s), "must be a URL or empty");

// v1 limits are stored on each key (management's RATE_LIMIT_PER_MINUTE / _PER_HOUR set them when a key
// is created); the gateway enforces whatever the key says. The legacy limit is one setting for all keys.
export const gatewayConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  MANAGEMENT_URL: z.url().default("http://127.0.0.1:8081"),
  ANALYTICS_URL: z.url().default("http://127.0.0.1:8083"),
  REDIRECT_URL: optionalUrl.default("http://127.0.0.1:8082"),
  LEGACY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(30),
  // Requests with a missing or invalid key allowed per client address and minute; beyond it the
  // client's API requests get 429 without any key lookup until the minute ends (docs/security.md).
  AUTH_FAILURE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(AUTH_FAILURE_LIMIT_DEFAULT),
  // Proxies in front of the gateway whose X-Forwarded-For entries are trusted for the client address
  // (false = none; true = 1; or a number): 1 in single-machine mode, where the redirect service fronts it.
  TRUST_PROXY: z
    .string()
    .default("false")
    .refine((v) => /^(true|false|\d{1,2})$/.test(v), "must be true, false or a number of proxy hops")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v))),
  KEY_CACHE_TTL_SECONDS: z.coerce.number().int().positive().default(60),
  // Requests a signed-in session (the dashboard) may make per account and minute (docs/api.md, "Sessions").
  SESSION_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  // Sign-up and sign-in requests per client address and minute, before management's own per-account
  // and per-client budgets of failed sign-ins.
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  // How long a session record stays cached; ending a session replaces its entry at once regardless.
  SESSION_CACHE_TTL_SECONDS: z.coerce.number().int().positive().default(60),
  /** Larger declared bodies are refused here; chunked ones are cut by the service at the same size. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env = process.env): GatewayConfig => loadConfig(gatewayConfigSchema, env);
