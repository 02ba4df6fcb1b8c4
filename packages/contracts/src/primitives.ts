import * as z from "zod";
import type { ZodOpenApiOverrideMetaContext } from "zod-openapi";
import { HttpUrlString } from "./url.ts";

/** Timestamps the API returns: ISO 8601, UTC, exactly millisecond precision. */
export const Timestamp = z.iso.datetime({ precision: 3 }).meta({
  description: "ISO 8601 timestamp in UTC with milliseconds",
  examples: ["2026-01-31T12:00:00.000Z"],
});

/** What a malformed expiry is told: the two forms accepted, each with an example. */
export const EXPIRES_AT_MESSAGE =
  "Expected an ISO 8601 date (2030-01-01, midnight UTC) or date-time with Z or an offset (2030-01-01T12:00:00+02:00)";

const isoDate = z.iso.date();
const isoDateTimeWithZone = z.iso.datetime({ offset: true });

/**
 * An expiry clients send (`expires_at` of links, bulk items, imports and API keys), answered as a
 * Timestamp: an ISO 8601 date is midnight UTC of that day; a date-time needs `Z` or a numeric offset, with
 * any sub-second precision. A bare local time is refused because its instant would depend on the
 * server's time zone. The parsed value is the instant in UTC with milliseconds
 * (`2030-01-01` → `2030-01-01T00:00:00.000Z`, `2030-01-01T12:00:00+02:00` → `2030-01-01T10:00:00.000Z`),
 * within the four-digit years a Timestamp can show.
 */
export const ExpiresAtInput = z
  .string()
  .refine((s) => isoDate.safeParse(s).success || isoDateTimeWithZone.safeParse(s).success, EXPIRES_AT_MESSAGE)
  .transform((s, ctx) => {
    const instant = new Date(s.length === 10 ? `${s}T00:00:00Z` : s);
    if (instant.getUTCFullYear() > 9999) {
      ctx.issues.push({ code: "custom", input: s, message: "Must be before the year 10000" });
      return z.NEVER;
    }
    return instant.toISOString();
  })
  .meta({
    description: "ISO 8601 date (midnight UTC) or date-time with Z or an offset",
    examples: ["2030-01-01", "2030-01-01T12:00:00+02:00"],
  });

/** A calendar day, `YYYY-MM-DD`. */
export const DateOnly = z.iso.date().meta({ examples: ["2026-01-31"] });

/** Analytics ranges take either a day or a full datetime (the API documents only "ISO 8601"). */
export const DateOrDateTimeInput = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })])
  .meta({ description: "ISO 8601 date (YYYY-MM-DD) or datetime with Z or an offset" });

export const Uuid = z.uuid();

/** Browsers and proxies commonly cap URLs around 2 KiB; longer destinations are almost always mistakes. */
export const MAX_URL_LENGTH = 2048;

const hasNul = (s: string) => s.includes("\u0000");
// C0 controls and DEL: never meant in a destination, and unsafe in a Location header.
const hasControlChar = (s: string) => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
};

/** Free text that is stored: Postgres text cannot hold NUL, so a NUL is a validation error, not a failed write. */
export const StoredText = () => z.string().refine((s) => !hasNul(s), "Must not contain NUL characters");

/** Absolute http(s) URL. IP-literal and single-label hosts are allowed: reachability is not a shape rule. */
export const HttpUrl = HttpUrlString()
  .max(MAX_URL_LENGTH)
  .refine((s) => !hasControlChar(s), "Must not contain control characters")
  .meta({ description: "Absolute http:// or https:// URL", examples: ["https://example.com/page"] });

export const Count = z.int().nonnegative();

interface QueryIntOptions {
  min: number;
  max?: number;
  description?: string;
}

/**
 * Integer carried in a query string. `z.coerce.number()` would accept "", " 7", "1e2", "0x10" and
 * "1.5"-after-rounding; this accepts only an optional minus sign and decimal digits, then range-checks
 * the number so that out-of-range values fail with a range message rather than a format one.
 */
export function queryInt({ min, max, description }: QueryIntOptions) {
  const range = max === undefined ? z.int().min(min) : z.int().min(min).max(max);
  return z
    .string()
    .regex(/^-?\d{1,15}$/, "Expected an integer")
    .transform(Number)
    .pipe(range)
    .meta({
      description,
      // Documented as what it means, not as the digit string it arrives as.
      override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => {
        delete jsonSchema.pattern;
        jsonSchema.type = "integer";
        jsonSchema.minimum = min;
        if (max !== undefined) jsonSchema.maximum = max;
      },
    });
}

/**
 * `.default()` for a query member that is transformed after parsing: zod leaves the default out of
 * the input JSON Schema then (the default is an output value), so it is written into the docs here.
 */
export function withQueryDefault<S extends z.ZodType>(
  schema: S,
  value: z.output<S>,
  documented: string | number,
) {
  return schema.default(value as never).meta({
    override: ({ jsonSchema }: ZodOpenApiOverrideMetaContext) => {
      jsonSchema.default = documented;
    },
  });
}
