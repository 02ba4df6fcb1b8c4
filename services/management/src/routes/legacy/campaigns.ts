// /api/campaigns, /api/campaign/*: campaigns with rotators. Records in contracts'
// routes-legacy.ts, use cases in campaigns/campaigns.ts. A campaign with a slug has a rotator at
// {base_url}/r/<slug>, which the redirect service serves from the Redis record the use cases write;
// its public list page is {base_url}/c/<public id> (campaign-page.ts): a random id, so that pages
// cannot be found by counting; `id` stays the API's integer.
import { ROUTES } from "@kurz/contracts";
import type { Campaign } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { assignLinkToCampaign } from "../../campaigns/assign-link-to-campaign.ts";
import type { CampaignWriterDeps } from "../../campaigns/campaigns.ts";
import { createCampaign } from "../../campaigns/create-campaign.ts";
import { deleteCampaign } from "../../campaigns/delete-campaign.ts";
import { listCampaignLinks } from "../../campaigns/list-campaign-links.ts";
import { listCampaigns } from "../../campaigns/list-campaigns.ts";
import { removeLinkFromCampaign } from "../../campaigns/remove-link-from-campaign.ts";
import { setCampaignLinkWeight } from "../../campaigns/set-campaign-link-weight.ts";
import { updateCampaign } from "../../campaigns/update-campaign.ts";
import { accountDomains, shortUrlOf } from "../../links/short-url.ts";
import { legacyListBody, legacyMessage, legacyOk } from "./legacy-envelope.ts";

export interface LegacyCampaignsDeps extends CampaignWriterDeps {
  baseUrl: string;
}

export function campaignUrls(campaign: Campaign, baseUrl: string) {
  return {
    rotator: campaign.slug ? `${baseUrl}/r/${campaign.slug}` : (false as const),
    list: `${baseUrl}/c/${campaign.publicId}`,
  };
}

/** Create and update answer with the name in `domain`, as the documented samples do. */
const toCampaignResponse = (campaign: Campaign, baseUrl: string) => {
  const { rotator, list } = campaignUrls(campaign, baseUrl);
  return legacyOk({ id: campaign.id, domain: campaign.name, public: campaign.public, rotator, list });
};

export function legacyCampaignsRoutes(deps: LegacyCampaignsDeps): MountedRoute[] {
  const { prisma, baseUrl } = deps;
  return [
    route(ROUTES.legacyListCampaignLinks, async ({ identity, params }) => {
      const [rows, domains] = await Promise.all([
        listCampaignLinks(prisma, identity.accountId, params.id),
        accountDomains(prisma, identity.accountId),
      ]);
      const links = rows.map(({ link, weight, position }) => ({
        link_id: link.id,
        short_code: link.shortCode,
        short_url: shortUrlOf(link, baseUrl, domains),
        title: link.title,
        original_url: link.originalUrl,
        weight,
        position,
      }));
      return legacyOk({ data: { links } });
    }),
    route(ROUTES.legacyWeightCampaignLink, async ({ identity, params, body }) => {
      await setCampaignLinkWeight(deps, identity.accountId, params.campaignid, params.linkid, body.weight);
      return legacyMessage("The link's weight has been updated.");
    }),
    route(ROUTES.legacyRemoveCampaignLink, async ({ identity, params }) => {
      await removeLinkFromCampaign(deps, identity.accountId, params.campaignid, params.linkid);
      return legacyMessage("Link has been removed from the campaign.");
    }),
    route(ROUTES.legacyListCampaigns, async ({ identity, query }) => {
      const page = await listCampaigns(prisma, identity.accountId, query);
      const items = page.items.map((c) => ({
        id: c.id,
        name: c.name,
        public: c.public,
        ...campaignUrls(c, baseUrl),
      }));
      return legacyListBody("campaigns", { ...page, items });
    }),
    route(ROUTES.legacyAddCampaign, async ({ identity, body }) =>
      toCampaignResponse(await createCampaign(deps, identity.accountId, body), baseUrl),
    ),
    route(ROUTES.legacyUpdateCampaign, async ({ identity, params, body }) =>
      toCampaignResponse(await updateCampaign(deps, identity.accountId, params.id, body), baseUrl),
    ),
    route(ROUTES.legacyDeleteCampaign, async ({ identity, params }) => {
      await deleteCampaign(deps, identity.accountId, params.id);
      return legacyMessage("Campaign has been deleted successfully.");
    }),
    route(ROUTES.legacyAssignCampaign, async ({ identity, params }) => {
      const added = await assignLinkToCampaign(deps, identity.accountId, params.campaignid, params.linkid);
      return legacyMessage(
        added ? "Link has been added to the campaign." : "Link is already in this campaign.",
      );
    }),
  ];
}
