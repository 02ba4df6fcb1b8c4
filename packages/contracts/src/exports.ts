// Exports (docs/import-export.md): the account's links as CSV or JSON (every field) and its
// click analytics as CSV, streamed. Links are management's, clicks are analytics', so each service
// answers its own export; the gateway forwards /api/v1/exports/analytics to analytics.
import * as z from "zod";
import { AnalyticsSharedField } from "./link.ts";
import { DateOrDateTimeInput, Uuid } from "./primitives.ts";
import { defineRoute } from "./routes.ts";

export const ExportLinksFormat = z.enum(["csv", "json"]);
export type ExportLinksFormat = z.infer<typeof ExportLinksFormat>;

export const ExportLinksQuery = z.object({
  format: ExportLinksFormat.optional().meta({ description: "csv (default) or json (an array of links)" }),
});
export type ExportLinksQuery = z.infer<typeof ExportLinksQuery>;

/** Columns of the links CSV, in order; the JSON export has the same members. */
export const LINK_EXPORT_COLUMNS = [
  "id",
  "short_code",
  "short_url",
  "original_url",
  "title",
  "is_active",
  "has_password",
  "expires_at",
  "clicks_count",
  "analytics_public",
  "analytics_shared_fields",
  "created_at",
  "updated_at",
] as const;

/** One element of the JSON export (documentation; the stream is built row by row). */
export const ExportedLink = z
  .object({
    id: Uuid,
    short_code: z.string(),
    short_url: z.string(),
    original_url: z.string(),
    title: z.string(),
    is_active: z.boolean(),
    has_password: z.boolean(),
    expires_at: z.string().nullable(),
    clicks_count: z.int().nonnegative(),
    analytics_public: z.boolean(),
    analytics_shared_fields: z.array(AnalyticsSharedField).nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "ExportedLink" });
export type ExportedLink = z.infer<typeof ExportedLink>;

/** What each analytics CSV row breaks clicks down by, besides link and day. */
export const ExportDimension = z.enum([
  "none",
  "referrer",
  "country",
  "city",
  "device",
  "browser",
  "os",
  "destination",
]);
export type ExportDimension = z.infer<typeof ExportDimension>;

export const ExportAnalyticsQuery = z
  .object({
    start: DateOrDateTimeInput.optional(),
    end: DateOrDateTimeInput.optional(),
    dimension: ExportDimension.optional().meta({
      description: "Adds a column `value` and one row per link, day and value (default none)",
    }),
    link_id: Uuid.optional().meta({ description: "Only this link (default: every link of the account)" }),
  })
  .refine(
    ({ start, end }) => start === undefined || end === undefined || Date.parse(start) <= Date.parse(end),
    {
      message: "start must not be after end",
      path: ["start"],
    },
  );
export type ExportAnalyticsQuery = z.infer<typeof ExportAnalyticsQuery>;

const V1 = "/api/v1";

export const EXPORT_ROUTES = {
  exportLinks: defineRoute({
    method: "GET",
    path: `${V1}/exports/links`,
    tag: "links",
    summary: "Every link of the account as CSV or JSON, streamed",
    auth: "key",
    query: ExportLinksQuery,
    status: 200,
    produces: ["text/csv", "application/json"],
    errors: ["VALIDATION_ERROR"],
  }),
  exportAnalytics: defineRoute({
    method: "GET",
    path: `${V1}/exports/analytics`,
    tag: "analytics",
    service: "analytics",
    summary: "Clicks per link and day (optionally per dimension value) as CSV, streamed",
    auth: "key",
    query: ExportAnalyticsQuery,
    status: 200,
    produces: ["text/csv"],
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
