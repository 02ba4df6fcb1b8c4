// Campaign membership beyond the original product (issue 13, decision 0022): a weight per assigned
// link for the rotator's split, the campaign's links, and removing one. Legacy envelopes and ids.
import * as z from "zod";
import { legacySuccess } from "./envelope.ts";
import { Uuid } from "./primitives.ts";

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
    short_url: z.url(),
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
