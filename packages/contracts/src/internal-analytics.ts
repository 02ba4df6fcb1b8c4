import * as z from "zod";
import { LinkCounts } from "./analytics.ts";
import { AnalyticsSharedField } from "./link.ts";
import { Timestamp, Uuid } from "./primitives.ts";

/**
 * Management's answers to analytics (`/internal/analytics/*`, caller credential of analytics only).
 * Analytics asks on every request because Postgres is the truth about which links exist and whose
 * they are; its own link dimension follows through the outbox and lags by up to the relay's poll
 * plus the consumer's delay (docs/analytics.md, "Read-your-writes").
 */

/** GET /internal/analytics/links/:link_id?account_id=… — the account's live link, else 404. */
export const AnalyticsLinkRef = z.object({
  link_id: Uuid,
  short_code: z.string(),
  created_at: Timestamp,
});
export type AnalyticsLinkRef = z.infer<typeof AnalyticsLinkRef>;

/** GET /internal/analytics/public/:short_code — a live link whose owner made analytics public, else 404. */
export const PublicAnalyticsRef = z.object({
  link_id: Uuid,
  account_id: Uuid,
  short_code: z.string(),
  /** null: every section is shared. */
  analytics_shared_fields: z.array(AnalyticsSharedField).nullable(),
});
export type PublicAnalyticsRef = z.infer<typeof PublicAnalyticsRef>;

/** At most this many candidate ids per summary call (a few times SUMMARY_TOP_LINKS). */
export const LINKS_SUMMARY_MAX_CANDIDATES = 25;
/** At most this many recently deleted link ids per summary call, newest first. */
export const LINKS_SUMMARY_MAX_DELETED = 1000;
/** Deletions are remembered (retired codes) for 30 days at least; a longer window would see nothing more. */
export const LINKS_SUMMARY_MAX_WINDOW_SECONDS = 30 * 86_400;

/**
 * GET /internal/analytics/accounts/:account_id/links-summary?candidates=<ids,…>&deleted_within=<s>:
 * what the account summary needs from management, in one call whose size does not grow with the
 * account's links.
 */
export const LinksSummaryQuery = z.object({
  /** Comma-separated link ids ranked by clicks in analytics; the live ones come back with their details. */
  candidates: z
    .string()
    .default("")
    .transform((s) => [...new Set(s.split(",").filter(Boolean))])
    .pipe(z.array(Uuid).max(LINKS_SUMMARY_MAX_CANDIDATES)),
  /** How far back deletions are listed: at least the longest lag expected of the analytics consumer. */
  deleted_within: z.coerce.number().int().positive().max(LINKS_SUMMARY_MAX_WINDOW_SECONDS),
});
export type LinksSummaryQuery = z.infer<typeof LinksSummaryQuery>;

export const LinksSummary = z.object({
  ...LinkCounts,
  /** The candidates that are the account's live links, with their current details (any order). */
  links: z.array(z.object({ id: Uuid, short_code: z.string(), original_url: z.string(), title: z.string() })),
  /** Links of the account deleted within the window, newest first (at most LINKS_SUMMARY_MAX_DELETED). */
  deleted_link_ids: z.array(Uuid),
  /** True when more deletions fell in the window than were listed. */
  deleted_truncated: z.boolean(),
});
export type LinksSummary = z.infer<typeof LinksSummary>;
