import * as z from "zod";
import { Count, ExpiresAtInput, StoredText, Timestamp, Uuid } from "./primitives.ts";
import { Scope } from "./scopes.ts";
import { CurrentPassword, SUDO_WINDOW_MINUTES } from "./sudo.ts";

/** Key format (ARCHITECTURE): `kurz_live_` + 32 base62 characters; key_prefix is its first 14 characters. */
export const API_KEY_PREFIX = "kurz_live_";
export const API_KEY_PATTERN = /^kurz_live_[A-Za-z0-9]{32}$/;
export const API_KEY_DISPLAY_PREFIX_LENGTH = 14;
export const MAX_ACTIVE_KEYS = 10;
export const KEY_NAME_MAX_LENGTH = 100;

/**
 * How often a workspace's links' destinations are checked (docs/health.md, "Scheduled checks"); `off`
 * stops the scheduled checks (a check on demand still runs).
 */
export const HealthCheckInterval = z.enum(["hourly", "daily", "weekly", "off"]);
export type HealthCheckInterval = z.infer<typeof HealthCheckInterval>;

export const Account = z
  .object({
    id: Uuid,
    email: z.email(),
    link_limit: Count,
    default_expiry_hours: z.int().positive().nullable(),
    total_links: Count,
    total_clicks: Count,
    created_at: Timestamp,
    // Beyond SnipURL's account object, set by an operator (`./kurz accounts:update`); Kurz always sends
    // them, optional so that SnipURL's documented samples still parse.
    status: z.string().optional().meta({ description: "Plan status, e.g. free or pro" }),
    rate_limit_per_minute: z
      .int()
      .positive()
      .optional()
      .meta({ description: "Requests per minute each of the account's API keys may make" }),
    rate_limit_per_hour: z
      .int()
      .positive()
      .optional()
      .meta({ description: "Requests per hour each of the account's API keys may make" }),
    forward_query: z
      .boolean()
      .optional()
      .meta({ description: "Whether new links forward the visit's query unless they say otherwise" }),
    health_check_interval: HealthCheckInterval.optional().meta({
      description: "How often the links' destinations are checked (docs/health.md); daily unless set",
    }),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof Account>;

const RateLimits = {
  rate_limit_per_minute: z.int().positive(),
  rate_limit_per_hour: z.int().positive(),
};

export const CurrentKey = z.object({ id: Uuid, name: z.string(), ...RateLimits });
export type CurrentKey = z.infer<typeof CurrentKey>;

export const ApiKeyItem = z
  .object({
    id: Uuid,
    name: z.string(),
    key_prefix: z.string().meta({ description: "Leading characters of the key, for identification" }),
    last_used_at: Timestamp.nullable(),
    ...RateLimits,
    expires_at: Timestamp.nullable(),
    created_at: Timestamp,
    // Beyond SPEC's key object: Kurz always sends them, optional so that SPEC's samples still parse.
    scopes: z.array(Scope).optional().meta({ description: "What the key may do (docs/workspaces.md)" }),
    created_by: Uuid.nullable()
      .optional()
      .meta({ description: "The user who made it; null once they are gone" }),
  })
  .meta({ id: "ApiKey" });
export type ApiKeyItem = z.infer<typeof ApiKeyItem>;

export const Usage = z
  .object({
    current_key: CurrentKey.nullable().meta({
      description: "The key that made the request; null with a session",
    }),
    active_keys: Count.meta({ description: "Keys neither revoked nor expired" }),
    keys: z.array(ApiKeyItem),
  })
  .meta({ id: "Usage" });
export type Usage = z.infer<typeof Usage>;

export const ApiKeyIdParams = z.object({ id: Uuid });
export type ApiKeyIdParams = z.infer<typeof ApiKeyIdParams>;

export const CreateApiKeyBody = z
  .object({
    name: StoredText().trim().min(1).max(KEY_NAME_MAX_LENGTH),
    expires_at: ExpiresAtInput.optional(),
    scopes: z
      .array(Scope)
      .min(1)
      .refine((list) => new Set(list).size === list.length, "Each scope once")
      .optional()
      .meta({
        description:
          "What the key may do; at most what the caller may grant. Absent: everything the caller may grant",
      }),
    current_password: CurrentPassword.optional().meta({
      description: `Required with a session unless the password was confirmed in the last ${SUDO_WINDOW_MINUTES} minutes (POST /api/v1/auth/confirm); not needed with a key`,
    }),
  })
  .meta({ id: "CreateApiKeyBody" });
export type CreateApiKeyBody = z.infer<typeof CreateApiKeyBody>;

/** The only response that ever carries the full key. */
export const CreatedApiKey = ApiKeyItem.extend({
  key: z
    .string()
    .regex(API_KEY_PATTERN)
    .meta({ description: "The full key; shown once, never stored in clear" }),
}).meta({ id: "CreatedApiKey" });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

export const RevokedApiKey = z.object({ id: Uuid, revoked: z.literal(true), revoked_at: Timestamp });
export type RevokedApiKey = z.infer<typeof RevokedApiKey>;
