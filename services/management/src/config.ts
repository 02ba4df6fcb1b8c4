import { Resolver } from "node:dns";
import { availableParallelism } from "node:os";
import { HttpUrlString } from "@kurz/contracts";
import {
  adminTokenProblem,
  booleanFlag,
  ConfigError,
  commaList,
  commonConfigSchema,
  DEV_WEBHOOK_SECRETS_KEY,
  loadConfig,
  opsConfig,
  unsetIfEmpty,
} from "@kurz/service-kit";
import { z } from "zod";

const dnsServers = commaList().refine(
  validResolverAddresses,
  "Expected comma-separated IP addresses, each with an optional port",
);

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
  TITLE_FETCH_ALLOW_HOSTS: commaList().transform((hosts) => hosts.map((h) => h.toLowerCase())),
  QR_CACHE_MAX_MB: z.coerce.number().positive().default(32),
  // Resolvers for branded-domain verification (TXT lookups): comma-separated `ip` or `ip:port`
  // (`[v6]:port`); empty uses the system's resolvers. Tests point it at a DNS server on loopback.
  DNS_SERVERS: dnsServers,
  // Resolvers for title fetches (same form as DNS_SERVERS); empty uses the system's. Tests point it at
  // a DNS server on loopback to give many names one address.
  TITLE_FETCH_DNS_SERVERS: dnsServers,
  // Title fetches started per destination site (registrable domain) per minute by one management
  // process; beyond it the title is the host name, so Kurz cannot be turned into a request amplifier
  // against one site.
  TITLE_FETCH_HOST_PER_MINUTE: z.coerce.number().int().positive().default(60),
  // Scheduled link-health checks (docs/health.md): on or off for this instance; the checks started per
  // second over every instance (the global budget, counted in Redis); the checks one instance runs at
  // once; how long an idle scheduler waits before it looks for due links again.
  HEALTH_SCHEDULE: z.enum(["on", "off"]).default("on"),
  HEALTH_CHECKS_PER_SECOND: z.coerce.number().int().positive().default(20),
  HEALTH_CHECK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  HEALTH_SCHEDULE_POLL_MS: z.coerce.number().int().positive().default(10_000),
  /** How often links with an overlay have stale framing checks redone, and how old is stale (decision 0026). */
  FRAME_CHECK_INTERVAL_MS: z.coerce.number().int().positive().default(600_000),
  FRAME_CHECK_MAX_AGE_HOURS: z.coerce.number().int().positive().default(24),
  // How long a deleted short code stays reserved to its former owner (days; fractions allowed).
  RETIRED_CODE_DAYS: z.coerce.number().positive().default(30),
  // Import jobs (docs/import-export.md): rows per transaction, how often an idle worker looks for a
  // job, and how long a worker holds a job without committing a batch before another may resume it.
  IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(1000),
  IMPORT_POLL_MS: z.coerce.number().int().positive().default(1000),
  IMPORT_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  // Jobs one instance runs at once (each of another account), how long one runs before a waiting
  // account's job takes its turn, and the threads that hash the rows' passwords (apart from the pool
  // sign-in's hashes use, at the lowest scheduling priority): one core fewer than the machine has, so
  // a core is always left for the requests even when the import's hashes keep the others busy (argon2
  // is memory-bound: a lower priority alone does not keep it from slowing a sign-in's hash beside it).
  IMPORT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  IMPORT_SLICE_MS: z.coerce.number().int().positive().default(30_000),
  IMPORT_HASH_THREADS: z.coerce
    .number()
    .int()
    .min(1)
    .max(16)
    .default(Math.max(1, availableParallelism() - 1)),
  // The gateway's budget of an account's sessions (the same variable): an import uploaded from the
  // dashboard charges its title fetches to it.
  SESSION_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  // Accounts and sessions (docs/api.md, "Sessions"). Closed sign-up refuses POST /api/v1/auth/register;
  // the admin CLI creates accounts either way.
  SIGNUP: z.enum(["open", "closed"]).default("open"),
  // Outgoing e-mail (invitations): smtp:// or smtps:// with credentials in the URL; unset, the
  // dashboard shows an invitation's link to its inviter instead. MAIL_FROM defaults to
  // no-reply@ the host of PUBLIC_BASE_URL.
  SMTP_URL: unsetIfEmpty(
    z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, "Expected smtp://… or smtps://…")
      .optional(),
  ),
  MAIL_FROM: unsetIfEmpty(z.string().min(3).optional()),
  // The operators' credential for PATCH /internal/admin/accounts (docs/api.md, "Plans and limits"): a long random
  // secret of its own, never derived from INTERNAL_TOKEN; unset, the admin endpoints are off.
  ADMIN_TOKEN: unsetIfEmpty(z.string().optional()),
  // Idle lifetime of a session: each use pushes its end this far forward (fractions allowed).
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 366)
    .default(14 * 24),
  // Absolute lifetime of a session: it ends this long after sign-in however much it is used.
  SESSION_MAX_AGE_DAYS: z.coerce.number().positive().max(366).default(30),
  // Failed sign-ins allowed per account (e-mail) and per client address in SIGNIN_WINDOW_MINUTES;
  // beyond either, sign-in answers 429 until the window ends, without checking the password.
  SIGNIN_ATTEMPTS_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  SIGNIN_ATTEMPTS_PER_CLIENT: z.coerce.number().int().positive().default(30),
  SIGNIN_WINDOW_MINUTES: z.coerce.number().positive().default(15),
  // Single sign-on (docs/workspaces.md, "Single sign-on"). The server's own OpenID Connect provider,
  // offered on the sign-in page as "Sign in with <OIDC_NAME>": all three of issuer, client id and
  // secret, or none. Workspaces' own providers are fetched through the SSRF guard; SSO_ALLOW_HOSTS
  // names hosts it lets through (and over plain http): for tests with a provider on loopback only.
  OIDC_ISSUER: unsetIfEmpty(HttpUrlString("OIDC_ISSUER must be an http(s) URL").optional()),
  OIDC_CLIENT_ID: unsetIfEmpty(z.string().min(1).optional()),
  OIDC_CLIENT_SECRET: unsetIfEmpty(z.string().min(1).optional()),
  OIDC_NAME: z.string().trim().min(1).max(60).default("single sign-on"),
  SSO_ALLOW_HOSTS: commaList().transform((hosts) => hosts.map((h) => h.toLowerCase())),
  SSO_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  // Webhooks (docs/webhooks.md). The signing secrets are stored encrypted under a key derived from
  // WEBHOOK_SECRETS_KEY; production refuses the development default. Changing it makes stored
  // secrets unreadable (rotate every endpoint's secret afterwards), and the TOTP secrets sealed under
  // another key derived from it (their users sign in with a recovery code or a passkey).
  WEBHOOK_SECRETS_KEY: z.string().min(16).default(DEV_WEBHOOK_SECRETS_KEY),
  // Host names (no ports) whose addresses are not checked: for tests with a local receiver only.
  WEBHOOK_ALLOW_HOSTS: commaList().transform((hosts) => hosts.map((h) => h.toLowerCase())),
  // Resolvers for webhook hosts (same form as DNS_SERVERS); empty uses the system's. Tests point it at
  // a DNS server on loopback to play DNS rebinding.
  WEBHOOK_DNS_SERVERS: dnsServers,
  WEBHOOK_POLL_MS: z.coerce.number().int().positive().default(500),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().positive().default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 60_000),
  WEBHOOK_RETRY_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 60 * 60_000),
  // An endpoint is disabled when all its attempts failed for this long and this many in a row.
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .nonnegative()
    .default(24 * 60 * 60_000),
  WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().positive().default(10),
  WEBHOOK_CLICK_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(100),
  WEBHOOK_CLICK_BATCH_MS: z.coerce.number().int().nonnegative().default(5_000),
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().positive().default(30),
  // The operational listener (/health, /ready, /metrics), never on PORT (service-kit's ops.ts).
  ...opsConfig(9081),
});

/** Node's own parser decides: what `Resolver.setServers` takes is valid. */
function validResolverAddresses(servers: string[]): boolean {
  try {
    new Resolver().setServers(servers);
    return true;
  } catch {
    return false;
  }
}

export type ManagementConfig = z.infer<typeof managementConfigSchema>;

export function loadManagementConfig(env = process.env): ManagementConfig {
  const config = loadConfig(managementConfigSchema, env);
  const problem =
    config.ADMIN_TOKEN === undefined ? null : adminTokenProblem(config.ADMIN_TOKEN, config.INTERNAL_TOKEN);
  if (problem !== null) throw new ConfigError([`ADMIN_TOKEN: ${problem}`]);
  const oidc = [config.OIDC_ISSUER, config.OIDC_CLIENT_ID, config.OIDC_CLIENT_SECRET];
  if (oidc.some((v) => v === undefined) && oidc.some((v) => v !== undefined)) {
    throw new ConfigError(["OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three or none"]);
  }
  return config;
}
