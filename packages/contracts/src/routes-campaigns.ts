// Campaign and channel membership routes of the older API added for the dashboard: list a
// campaign's links, weight one, remove one; remove a link from a channel. Declared once (decision 0010).
import { AnalyticsQuery } from "./analytics.ts";
import {
  CampaignAnalytics,
  CampaignAnalyticsParams,
  LegacyCampaignLinksResponse,
  LegacyCampaignWeightBody,
} from "./campaigns.ts";
import { successEnvelope } from "./envelope.ts";
import { LegacyAssignParams, LegacyChannelAssignParams, LegacyIdParams } from "./legacy.ts";
import { defineRoute } from "./routes.ts";
import { legacy } from "./routes-legacy.ts";

export const CAMPAIGN_ROUTES = {
  getCampaignAnalytics: defineRoute({
    method: "GET",
    path: "/api/v1/analytics/campaigns/:id",
    tag: "analytics",
    service: "analytics",
    summary: "Clicks of a campaign's links (older API campaign id), per link and in total",
    auth: "key",
    params: CampaignAnalyticsParams,
    query: AnalyticsQuery,
    status: 200,
    response: successEnvelope(CampaignAnalytics),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyListCampaignLinks: legacy({
    method: "GET",
    path: "/api/campaign/:id/links",
    summary: "A campaign's links in rotation order",
    params: LegacyIdParams,
    response: LegacyCampaignLinksResponse,
  }),
  legacyWeightCampaignLink: legacy({
    method: "PUT",
    path: "/api/campaign/:campaignid/weight/:linkid",
    summary: "Set an assigned link's rotator weight",
    params: LegacyAssignParams,
    body: LegacyCampaignWeightBody,
  }),
  legacyRemoveCampaignLink: legacy({
    method: "DELETE",
    path: "/api/campaign/:campaignid/remove/:linkid",
    summary: "Remove a link from a campaign",
    params: LegacyAssignParams,
  }),
  legacyRemoveChannelLink: legacy({
    method: "DELETE",
    path: "/api/channel/:channelid/remove/:linkid",
    summary: "Remove a link from a channel",
    params: LegacyChannelAssignParams,
  }),
} as const;
