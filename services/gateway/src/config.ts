import { AnyUrl, isUrl } from "@kurz/contracts";
import { AUTH_FAILURE_LIMIT_DEFAULT, commonConfigSchema, loadConfig, opsConfig } from "@kurz/service-kit";
import { z } from "zod";

const optionalUrl = z
  .string()
  .default("")
  .refine((s) => s === "" || isUrl(s), "must be a URL or empty");

// v1 limits are stored on each key (management's RATE_LIMIT_PER_MINUTE / _PER_HOUR set them when a key
// is created); the gateway enforces whatever the key says. The legacy limit is one setting for all keys.
export const gatewayConfigSchema = commonConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  MANAGEMENT_URL: AnyUrl().default("http://127.0.0.1:8081"),
  ANALYTICS_URL: AnyUrl().default("http://127.0.0.1:8083"),
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
  // Single-machine mode (docs/decisions/0038): a listener, on SPLICE_HOST (loopback by default: whoever
  // reaches it states any client address), for the connections the redirect splices to this service.
  // Each starts with a PROXY v1 header naming the visitor. 0: no such listener.
  SPLICE_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  SPLICE_HOST: z.string().min(1).default("127.0.0.1"),
  // X-Forwarded-For hops believed on spliced connections: the redirect's own TRUST_PROXY, since the
  // bytes are the client's as the redirect received them (false = none; true = 1; or a number).
  SPLICE_TRUST_PROXY: z
    .string()
    .default("false")
    .refine((v) => /^(true|false|\d{1,2})$/.test(v), "must be true, false or a number of proxy hops")
    .transform((v) => (v === "true" ? 1 : v === "false" ? 0 : Number(v))),
  // Where a spliced connection's requests that are not the gateway's (short links, the dashboard's
  // pages: everything but isApiPath) go: the redirect's return listener (its SPLICE_RETURN_PORT).
  SPLICE_RETURN_URL: optionalUrl,
  // The built dashboard (services/web/dist by default, next to this service): web-app.ts.
  WEB_DIST_DIR: z.string().default(""),
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
  // The operational listener (/health, /ready, /metrics), never on PORT (service-kit's ops.ts).
  ...opsConfig(9080),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const loadGatewayConfig = (env = process.env): GatewayConfig => loadConfig(gatewayConfigSchema, env);
