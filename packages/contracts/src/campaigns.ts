// Campaign membership beyond the original product (decision 0026): a weight per assigned
// link for the rotator's split, the campaign's links, and removing one. Legacy envelopes and ids.
import * as z from "zod";
import { legacySuccess } from "./envelope.ts";
import { LEGACY_ID_MAX } from "./legacy.ts";
import { Count, Timestamp, Uuid } from "./primitives.ts";
import { AnyUrl } from "./url.ts";

export const CAMPAIGN_WEIGHT_MAX = 1000;

export const CampaignWeight = z
  .int()
  .min(1)
  .max(CAMPAIGN_WEIGHT_MAX)
  .meta({ description: "Share of the rotator's visitors relative to the other links' weights (default 1)" });

export const LegacyCampaignWeightBody = z.object({ weight: CampaignWeight });
export type LegacyCampaignWeightBody = z.infer<typeof LegacyCampaignWeightBody>;

export const LegacyCampaignLink = z
  .object({
    link_id: Uuid,
    short_code: z.string(),
    short_url: AnyUrl(),
    title: z.string(),
    original_url: z.string(),
    weight: z.int().positive(),
    position: z.int().positive().meta({ description: "Assignment order (the rotator's order)" }),
  })
  .meta({ id: "LegacyCampaignLink" });
export type LegacyCampaignLink = z.infer<typeof LegacyCampaignLink>;

export const LegacyCampaignLinksResponse = legacySuccess({
  data: z.object({ links: z.array(LegacyCampaignLink) }),
});
export type LegacyCampaignLinksResponse = z.infer<typeof LegacyCampaignLinksResponse>;

// ---- campaign analytics (served by analytics, which learns membership from these events) ----

/**
 * A campaign's whole membership, on the `links` topic under key `campaign:<id>` (management's outbox),
 * after every change of it and on delete. Absolute state: a redelivered or older event never wins over
 * a newer one (analytics versions rows by `occurred_at`). Consumers that predate it skip it.
 */
export const CampaignMembershipEvent = z.object({
  v: z.literal(1),
  type: z.literal("campaign.links"),
  campaign_id: z.int().positive(),
  account_id: Uuid,
  links: z.array(z.object({ id: Uuid, short_code: z.string() })),
  deleted: z.boolean(),
  occurred_at: Timestamp,
});
export type CampaignMembershipEvent = z.infer<typeof CampaignMembershipEvent>;

/**
 * Whether a `links` topic message claims to be a campaign's membership, by its type alone: told apart
 * before any parse, since a failed parse builds its whole error (decision 0044).
 */
export function isCampaignMembershipMessage(value: unknown): boolean {
  return (value as { type?: unknown } | null)?.type === "campaign.links";
}

export const CampaignAnalyticsParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,9}$/, "Expected a positive integer id")
    .transform(Number)
    .pipe(z.int().positive().max(LEGACY_ID_MAX)),
});
export type CampaignAnalyticsParams = z.infer<typeof CampaignAnalyticsParams>;

/** Campaigns are small: their analytics report the first this many links (in rotation order). */
export const CAMPAIGN_ANALYTICS_LINKS_MAX = 100;

export const CampaignAnalytics = z
  .object({
    campaign_id: z.int().positive(),
    total_clicks: Count.meta({ description: "Human clicks of the campaign's links in the period" }),
    links: z.array(
      z.object({
        link_id: Uuid,
        short_code: z.string(),
        total_clicks: Count,
      }),
    ),
  })
  .meta({ id: "CampaignAnalytics" });
export type CampaignAnalytics = z.infer<typeof CampaignAnalytics>;
