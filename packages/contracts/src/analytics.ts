import * as z from "zod";
import { AnalyticsSharedField, ShortCode } from "./link.ts";
import { Count, DateOnly, DateOrDateTimeInput, Uuid } from "./primitives.ts";
import { Destination } from "./smart-link.ts";
import { AnyUrl } from "./url.ts";

export const TOP_LIST_SIZE = 10;
export const SUMMARY_TOP_LINKS = 5;

/** ISO 3166-1 alpha-2; `ZZ` (user-assigned) stands for an address that could not be located. */
const CountryCode = z.string().regex(/^[A-Z]{2}$/);

export const DeviceType = z.enum(["mobile", "tablet", "desktop"]);
export type DeviceType = z.infer<typeof DeviceType>;

const DailyCount = z.object({ date: DateOnly, count: Count });
const HourlyCount = z.object({
  hour: z.iso.datetime().meta({ description: "Start of the hour, UTC", examples: ["2026-01-31T14:00:00Z"] }),
  count: Count,
});

/** `interval=hour` covers at most this long a period (end − start), so a series stays ≤ 169 points. */
export const HOURLY_MAX_DAYS = 7;
export const AnalyticsInterval = z.enum(["day", "hour"]);
export type AnalyticsInterval = z.infer<typeof AnalyticsInterval>;

/** Days by default (the documented `{date, count}`); hours only when asked for with `interval=hour`. */
const TimeSeries = (description: string) =>
  z.union([z.array(DailyCount), z.array(HourlyCount)]).meta({ description });

export const LinkAnalytics = z
  .object({
    link_id: Uuid,
    short_code: z.string(),
    total_clicks: Count.meta({ description: "Human clicks in the selected period" }),
    time_series: TimeSeries(
      "One entry per day with at least one click; per hour (`{hour, count}`) with `interval=hour`",
    ),
    referrers: z
      .array(
        z.object({
          referrer: z.string().nullable().meta({ description: "null is direct traffic" }),
          count: Count,
        }),
      )
      .max(TOP_LIST_SIZE),
    countries: z.array(z.object({ country: CountryCode, count: Count })).max(TOP_LIST_SIZE),
    cities: z.array(z.object({ city: z.string(), country: CountryCode, count: Count })).max(TOP_LIST_SIZE),
    devices: z.array(z.object({ device_type: DeviceType, count: Count })),
    browsers: z.array(z.object({ browser: z.string(), count: Count })).max(TOP_LIST_SIZE),
    os: z.array(z.object({ os: z.string(), count: Count })).max(TOP_LIST_SIZE),
    bot_clicks: Count.optional().meta({
      description: "Clicks by bots and link-preview fetchers, excluded above",
    }),
    unique_visitors: Count.optional(),
    // A Kurz extension, hence optional in the schema (SPEC's samples have none); always sent to the owner.
    destinations: z
      .array(z.object({ destination: Destination, count: Count }))
      .optional()
      .meta({
        description:
          "Human clicks by which part of the link sent them: `default` (original_url), `rule:N` (the Nth rule), `split:N` (the Nth split arm), `ios`, `android`, `expired` (expired_url), `broken` (broken_url while the link is broken); every destination that has clicks, most first. Not on public analytics",
      }),
  })
  .meta({ id: "LinkAnalytics" });
export type LinkAnalytics = z.infer<typeof LinkAnalytics>;

/** The account's links, all and active: management counts them (LinksSummary), the summary passes them on. */
export const LinkCounts = { total_links: Count, active_links: Count };

export const AnalyticsSummary = z
  .object({
    ...LinkCounts,
    total_clicks: Count,
    unique_visitors: Count.optional().meta({
      description:
        "Distinct visitors to the account's links in the period (all time without one), counted as a link's `unique_visitors`: per UTC day across all links, days added up; bots excluded",
    }),
    clicks_over_time: TimeSeries(
      "One entry per day with at least one click; per hour (`{hour, count}`) with `interval=hour`",
    ),
    top_links: z
      .array(
        z.object({
          id: Uuid,
          short_code: z.string(),
          original_url: AnyUrl(),
          title: z.string(),
          clicks_count: Count,
        }),
      )
      .max(SUMMARY_TOP_LINKS),
  })
  .meta({ id: "AnalyticsSummary" });
export type AnalyticsSummary = z.infer<typeof AnalyticsSummary>;

/** A bare end date includes that whole day (as analytics reads it). */
const inclusiveEnd = (end: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(end) ? Date.parse(`${end}T00:00:00.000Z`) + 86_400_000 - 1 : Date.parse(end);

/**
 * The filter applies only when both ends are given. A start after the end is rejected rather than
 * answered with an empty period, which would look like "no clicks".
 */
export const AnalyticsQuery = z
  .object({
    start: DateOrDateTimeInput.optional(),
    end: DateOrDateTimeInput.optional(),
    interval: AnalyticsInterval.optional().meta({
      description: `Buckets of \`time_series\`/\`clicks_over_time\`: \`day\` (default) or \`hour\`, which needs start and end at most ${HOURLY_MAX_DAYS} days apart`,
    }),
  })
  .refine(
    ({ start, end }) => start === undefined || end === undefined || Date.parse(start) <= inclusiveEnd(end),
    {
      message: "start must not be after end",
      path: ["start"],
    },
  )
  .refine(
    ({ start, end, interval }) =>
      interval !== "hour" ||
      (start !== undefined &&
        end !== undefined &&
        inclusiveEnd(end) - Date.parse(start) <= HOURLY_MAX_DAYS * 86_400_000),
    {
      message: `interval=hour needs start and end at most ${HOURLY_MAX_DAYS} days apart`,
      path: ["interval"],
    },
  );
export type AnalyticsQuery = z.infer<typeof AnalyticsQuery>;

export const AnalyticsLinkParams = z.object({ link_id: Uuid });
export type AnalyticsLinkParams = z.infer<typeof AnalyticsLinkParams>;

export const PublicAnalyticsParams = z.object({ short_code: ShortCode });
export type PublicAnalyticsParams = z.infer<typeof PublicAnalyticsParams>;

/** Which LinkAnalytics members each shareable section exposes on the public endpoint. */
export const SHARED_FIELD_SECTIONS = {
  overview: ["total_clicks", "unique_visitors", "time_series"],
  locations: ["countries", "cities"],
  devices: ["devices", "os"],
  referrers: ["referrers"],
  browsers: ["browsers"],
} as const satisfies Record<AnalyticsSharedField, readonly (keyof LinkAnalytics)[]>;

/**
 * GET /api/v1/public/analytics/:short_code: only the sections the owner shares; no ids, no bot counts,
 * no destinations (they name the owner's rules and tests, which no section shares).
 * Served only when the link has analytics_public; otherwise 404 so private links are not revealed.
 */
export const PublicLinkAnalytics = LinkAnalytics.omit({ link_id: true, bot_clicks: true, destinations: true })
  .partial()
  .extend({ short_code: z.string(), shared_fields: z.array(AnalyticsSharedField) })
  .meta({ id: "PublicLinkAnalytics" });
export type PublicLinkAnalytics = z.infer<typeof PublicLinkAnalytics>;
