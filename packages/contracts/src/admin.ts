// The shapes of the operators' route (INTERNAL_ROUTES.updateAccountLimits, `PATCH /internal/admin/accounts`
// on management, and `./kurz accounts:update`, which runs the same use case): an account's plan status,
// link limit and its keys' rate limits. Only the operators' credential (ADMIN_TOKEN, in
// INTERNAL_HEADERS.adminToken) reaches it: never a user's key or session, nor another service's caller
// credential (docs/security.md).
import * as z from "zod";
import { Count, Uuid } from "./primitives.ts";

/** An operator's credential is a long random secret, like INTERNAL_TOKEN, and never equal to it. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
export const MAX_LINK_LIMIT = 10_000_000;
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000_000;
export const MAX_RATE_LIMIT_PER_HOUR = 60_000_000;

/** A plan status as the older API shows it (`status`: "pro" in the original product's sample). */
export const AccountStatus = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,31}$/,
    "A status is 1 to 32 lower-case letters, digits and hyphens, starting with a letter (e.g. free, pro)",
  )
  .meta({ description: "Plan status, e.g. free or pro", examples: ["pro"] });

const LIMIT_FIELDS = ["link_limit", "rate_limit_per_minute", "rate_limit_per_hour", "status"] as const;

export const UpdateAccountLimitsBody = z
  .strictObject({
    email: z.email("Expected the account's e-mail address").optional(),
    account_id: Uuid.optional().meta({
      description: "The workspace's id: names one when several share the contact e-mail",
    }),
    link_limit: z.int().min(0).max(MAX_LINK_LIMIT).optional(),
    rate_limit_per_minute: z.int().min(1).max(MAX_RATE_LIMIT_PER_MINUTE).optional(),
    rate_limit_per_hour: z.int().min(1).max(MAX_RATE_LIMIT_PER_HOUR).optional(),
    status: AccountStatus.optional(),
  })
  .refine((body) => LIMIT_FIELDS.some((field) => body[field] !== undefined), {
    message: `Give at least one of ${LIMIT_FIELDS.join(", ")}`,
  })
  .refine((body) => (body.email === undefined) !== (body.account_id === undefined), {
    message: "Name the account by email or by account_id (one of them)",
    path: ["email"],
  })
  .meta({ id: "UpdateAccountLimitsBody" });
export type UpdateAccountLimitsBody = z.infer<typeof UpdateAccountLimitsBody>;

/** The account's limits after the change; `keys_updated` counts the keys whose rate limits were rewritten. */
export const AccountLimits = z
  .object({
    id: Uuid,
    email: z.email(),
    status: z.string(),
    link_limit: Count,
    rate_limit_per_minute: z.int().positive(),
    rate_limit_per_hour: z.int().positive(),
    keys_updated: Count,
  })
  .meta({ id: "AccountLimits" });
export type AccountLimits = z.infer<typeof AccountLimits>;
