// /api/campaigns, /api/campaign/*: campaigns with rotators (SPEC 2.10, 4.2). A campaign with a slug
// has a rotator at {base_url}/r/<slug>, which the redirect service serves from the Redis record
// written here; its public list page is {base_url}/c/<id> (campaign-page.ts).
import {
  LegacyAssignParams,
  LegacyCampaignAddBody,
  LegacyCampaignUpdateBody,
  LegacyIdParams,
} from "@kurz/contracts";
import type { Campaign, PrismaClient } from "@kurz/db";
import { conflict, notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import type { LegacyRecords } from "../../legacy-records.ts";
import { legacyListBody, legacyPage } from "./list-page.ts";
import { isRecordMissing, isUniqueViolation } from "./prisma-errors.ts";

export interface LegacyCampaignsDeps {
  prisma: PrismaClient;
  legacyRecords: LegacyRecords;
  baseUrl: string;
}

const DEFAULT_CAMPAIGN_NAME = "Untitled campaign";
const campaignNotFound = () => notFound("Campaign not found");
const slugTaken = (slug: string) => conflict(`The rotator slug '${slug}' is already taken`);

export function campaignUrls(campaign: Campaign, baseUrl: string) {
  return {
    rotator: campaign.slug ? `${baseUrl}/r/${campaign.slug}` : (false as const),
    list: `${baseUrl}/c/${campaign.id}`,
  };
}

/** Create and update answer with the name in `domain`, as the SPEC samples do. */
const toCampaignResponse = (campaign: Campaign, baseUrl: string) => {
  const { rotator, list } = campaignUrls(campaign, baseUrl);
  return { error: 0, id: campaign.id, domain: campaign.name, public: campaign.public, rotator, list };
};

export function legacyCampaignsRouter(deps: LegacyCampaignsDeps): Router {
  const router = Router();
  const { prisma, legacyRecords, baseUrl } = deps;

  router.get("/campaigns", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const where = { accountId };
    const page = await legacyPage(
      req.query,
      () => prisma.campaign.count({ where }),
      (skip, take) => prisma.campaign.findMany({ where, orderBy: { id: "desc" }, skip, take }),
    );
    const items = page.items.map((c) => ({
      id: c.id,
      name: c.name,
      public: c.public,
      ...campaignUrls(c, baseUrl),
    }));
    res.json(legacyListBody("campaigns", { ...page, items }));
  });

  router.post("/campaign/add", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const body = LegacyCampaignAddBody.parse(req.body);
    let campaign: Campaign;
    try {
      campaign = await prisma.campaign.create({
        data: {
          accountId,
          name: body.name ?? body.slug ?? DEFAULT_CAMPAIGN_NAME,
          slug: body.slug ?? null,
          public: body.public ?? false,
        },
      });
    } catch (err) {
      if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
      throw err;
    }
    await legacyRecords.syncRotator(prisma, campaign.id, null);
    res.json(toCampaignResponse(campaign, baseUrl));
  });

  router.put("/campaign/:id/update", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    const body = LegacyCampaignUpdateBody.parse(req.body);
    const before = await prisma.campaign.findFirst({ where: { id, accountId }, select: { slug: true } });
    if (!before) throw campaignNotFound();
    let campaign: Campaign;
    try {
      campaign = await prisma.campaign.update({
        where: { id, accountId },
        data: {
          name: body.name,
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(body.public !== undefined ? { public: body.public } : {}),
        },
      });
    } catch (err) {
      if (isUniqueViolation(err) && body.slug) throw slugTaken(body.slug);
      if (isRecordMissing(err)) throw campaignNotFound();
      throw err;
    }
    await legacyRecords.syncRotator(prisma, campaign.id, before.slug);
    res.json(toCampaignResponse(campaign, baseUrl));
  });

  router.delete("/campaign/:id/delete", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    let campaign: Campaign;
    try {
      campaign = await prisma.campaign.delete({ where: { id, accountId } });
    } catch (err) {
      if (isRecordMissing(err)) throw campaignNotFound();
      throw err;
    }
    if (campaign.slug) await legacyRecords.removeRotator(campaign.slug);
    res.json({ error: 0, message: "Campaign has been deleted successfully." });
  });

  router.post("/campaign/:campaignid/assign/:linkid", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { campaignid, linkid } = LegacyAssignParams.parse(req.params);
    const added = await prisma.$transaction(async (tx) => {
      // Locking the campaign row serialises assignments, so positions stay unique and gap-free.
      const locked = await tx.$queryRaw<{ id: number }[]>`
        SELECT id FROM campaigns WHERE id = ${campaignid} AND account_id = ${accountId}::uuid FOR UPDATE`;
      if (locked.length === 0) throw campaignNotFound();
      const link = await tx.link.findFirst({ where: { id: linkid, accountId }, select: { id: true } });
      if (!link) throw notFound("Link not found");
      const existing = await tx.campaignLink.findUnique({
        where: { campaignId_linkId: { campaignId: campaignid, linkId: linkid } },
      });
      if (existing) return false;
      const last = await tx.campaignLink.aggregate({
        where: { campaignId: campaignid },
        _max: { position: true },
      });
      await tx.campaignLink.create({
        data: { campaignId: campaignid, linkId: linkid, position: (last._max.position ?? 0) + 1 },
      });
      return true;
    });
    if (added) await legacyRecords.syncRotator(prisma, campaignid, null);
    res.json({
      error: 0,
      message: added ? "Link has been added to the campaign." : "Link is already in this campaign.",
    });
  });

  return router;
}
