import * as z from "zod";

export const ErrorCode = z.enum([
  "VALIDATION_ERROR",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "KEY_EXPIRED",
  "KEY_REVOKED",
  "FORBIDDEN",
  "TWO_FACTOR_REQUIRED",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "CONFLICT",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RATE_LIMIT_EXCEEDED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  KEY_EXPIRED: 401,
  KEY_REVOKED: 401,
  FORBIDDEN: 403,
  TWO_FACTOR_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z
    .record(z.string(), z.unknown())
    .optional()
    .meta({
      description:
        "VALIDATION_ERROR: zod's formatted error tree: `_errors` (messages about the object itself) and one " +
        "member per failing field, nested the same way for objects and arrays (array members are keyed by index), " +
        'e.g. `{"_errors":[],"url":{"_errors":["Invalid URL"]}}`; RATE_LIMIT_EXCEEDED: limit, window, retry_after; ' +
        "other codes: extra context about the refusal, when there is any",
    }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ErrorEnvelope = z
  .object({ success: z.literal(false), error: ErrorBody })
  .meta({ id: "ErrorEnvelope" });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** `{ success: true, data }`, plus `meta` when a meta schema is given. */
export function successEnvelope<D extends z.ZodType>(
  data: D,
): z.ZodObject<{ success: z.ZodLiteral<true>; data: D }>;
export function successEnvelope<D extends z.ZodType, M extends z.ZodType>(
  data: D,
  meta: M,
): z.ZodObject<{ success: z.ZodLiteral<true>; data: D; meta: M }>;
export function successEnvelope(data: z.ZodType, meta?: z.ZodType) {
  return meta === undefined
    ? z.object({ success: z.literal(true), data })
    : z.object({ success: z.literal(true), data, meta });
}

/**
 * Body of `error.details` for VALIDATION_ERROR: zod's formatted tree (`{"_errors":[],"url":{"_errors":[…]}}`),
 * the shape SnipURL's documented clients read (docs/decisions/0010-routes-declared-once.md).
 */
export function validationDetails(error: z.core.$ZodError): ValidationDetails {
  return z.formatError(error) as ValidationDetails;
}

/** The formatted tree: `_errors` at every level, one member per failing field or array index. */
export interface ValidationDetails {
  _errors: string[];
  [field: string]: ValidationDetails | string[];
}

/** A formatted tree with messages on the given top-level fields only (for checks zod does not make). */
export function fieldErrors(fields: Record<string, string>): ValidationDetails {
  const tree: ValidationDetails = { _errors: [] };
  for (const [field, message] of Object.entries(fields)) tree[field] = { _errors: [message] };
  return tree;
}

export const PaginationMeta = z
  .object({
    page: z.int().min(1),
    per_page: z.int().min(1),
    total: z.int().nonnegative(),
    total_pages: z.int().nonnegative(),
  })
  .meta({ id: "PaginationMeta" });
export type PaginationMeta = z.infer<typeof PaginationMeta>;

export const RateLimitWindow = z.enum(["1m", "1h"]);
export type RateLimitWindow = z.infer<typeof RateLimitWindow>;

export const RateLimitDetails = z.object({
  limit: z.int().positive(),
  window: RateLimitWindow,
  retry_after: z.int().nonnegative().meta({ description: "Seconds until the window resets" }),
});
export type RateLimitDetails = z.infer<typeof RateLimitDetails>;

/** Headers on every API response, refusals included; Retry-After is added on 429 only. */
export const RATE_LIMIT_HEADERS = {
  limit: "X-RateLimit-Limit",
  remaining: "X-RateLimit-Remaining",
  reset: "X-RateLimit-Reset",
  retryAfter: "Retry-After",
} as const;

// ---- legacy (unversioned /api) envelope, as the original product answers ----

/** Non-list success: integer `error: 0` next to the response's own members. */
export function legacySuccess<S extends z.ZodRawShape>(shape: S) {
  return z.object({ error: z.literal(0), ...shape });
}

export const LegacyMessageResponse = legacySuccess({ message: z.string() });
export type LegacyMessageResponse = z.infer<typeof LegacyMessageResponse>;

export const LegacyErrorEnvelope = z
  .object({ error: z.literal(1), message: z.string() })
  .meta({ id: "LegacyErrorEnvelope" });
export type LegacyErrorEnvelope = z.infer<typeof LegacyErrorEnvelope>;

/**
 * List success: string `error: "0"` (as the original product's samples show) and
 * `data: { result, perpage, currentpage, nextpage, maxpage, <collection>: [...] }`.
 * `nextpage` is null on the last page.
 */
export function legacyList<K extends string, I extends z.ZodType>(collection: K, item: I) {
  const pagination = {
    result: z.int().nonnegative().meta({ description: "Number of items in the whole collection" }),
    perpage: z.int().positive(),
    currentpage: z.int().positive(),
    nextpage: z.int().positive().nullable(),
    maxpage: z.int().nonnegative(),
  };
  const items = { [collection]: z.array(item) } as { [P in K]: z.ZodArray<I> };
  return z.object({ error: z.literal("0"), data: z.object({ ...pagination, ...items }) });
}
