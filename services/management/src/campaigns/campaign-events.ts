// Campaign membership for analytics: analytics owns clicks and learns which links make up a
// campaign from these events (the whole membership each time), written to the outbox in the
// transaction that changed it, like link events (outbox.ts): on create (empty), assign, remove, a
// member link's delete and the campaign's delete. The writer wakes the relay after the commit.
import { type CampaignMembershipEvent, TOPICS } from "@kurz/contracts";
import type { Prisma } from "@kurz/db";

export async function enqueueCampaignMembership(
  tx: Prisma.TransactionClient,
  campaign: { id: number; accountId: string },
  deleted = false,
): Promise<void> {
  const rows = deleted
    ? []
    : await tx.campaignLink.findMany({
        where: { campaignId: campaign.id },
        orderBy: { position: "asc" },
        select: { link: { select: { id: true, shortCode: true } } },
      });
  const event: CampaignMembershipEvent = {
    v: 1,
    type: "campaign.links",
    campaign_id: campaign.id,
    account_id: campaign.accountId,
    links: rows.map(({ link }) => ({ id: link.id, short_code: link.shortCode })),
    deleted,
    occurred_at: new Date().toISOString(),
  };
  await tx.outboxEvent.create({
    data: { topic: TOPICS.links, key: `campaign:${campaign.id}`, payload: event as object },
  });
}
