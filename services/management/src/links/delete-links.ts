// Deleting links, one or many (DELETE /links/:id, bulk delete, and a branded domain's delete, which
// removes its links in its own transaction).
import type { Link, Prisma } from "@kurz/db";
import { recordAudit } from "../audit/record-audit.ts";
import { enqueueCampaignMembership } from "../campaigns/campaign-events.ts";
import { enqueueLinkEvents, linkEvent } from "../db/outbox.ts";
import { campaignsOfLinks } from "../projections/domain-and-rotator-records.ts";
import { countLinksRemoved } from "./link-count.ts";
import type { LinkWriterDeps } from "./link-writer.ts";
import { LINK_COLUMNS } from "./list-links.ts";
import { retireCodes } from "./retired-codes.ts";

type Tx = Prisma.TransactionClient;

/**
 * Deletes the account's links among `ids` (others' and unknown ids are skipped) and returns what was
 * removed. The `link.deleted` events make analytics drop the click data; the codes stay reserved to
 * this account for the grace period (retired-codes.ts), recorded in the same transaction.
 */
export async function deleteLinks(
  deps: LinkWriterDeps,
  accountId: string,
  ids: readonly string[],
): Promise<Link[]> {
  const deleted = await deps.prisma.$transaction((tx) => deleteLinksInTx(tx, accountId, ids));
  await afterLinksDeleted(deps, deleted);
  return deleted.links;
}

/** What deleteLinksInTx removed, and the campaigns whose rotators listed those links. */
export interface DeletedLinks {
  links: Link[];
  campaignIds: number[];
}

/**
 * The delete itself, inside the caller's transaction (a branded domain's delete removes its links in
 * the same one): the rows, one `link.deleted` event each, their retired codes and the account's count.
 * Call afterLinksDeleted once it has committed.
 */
export async function deleteLinksInTx(
  tx: Tx,
  accountId: string,
  ids: readonly string[],
): Promise<DeletedLinks> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return { links: [], campaignIds: [] };
  const campaignIds = await campaignsOfLinks(tx, unique);
  const links = await tx.$queryRaw<Link[]>`
    DELETE FROM links WHERE account_id = ${accountId}::uuid AND id = ANY(${unique}::uuid[])
    RETURNING ${LINK_COLUMNS}`;
  await enqueueLinkEvents(
    tx,
    links.map((link) => linkEvent("link.deleted", link)),
  );
  // The cascade took the links out of their campaigns: analytics hears each one's new membership. Only
  // when a link was deleted, and only of the account's own campaigns: `ids` may name anyone's links.
  if (links.length > 0) {
    const campaigns = await tx.campaign.findMany({
      where: { id: { in: campaignIds }, accountId },
      select: { id: true, accountId: true },
    });
    for (const campaign of campaigns) await enqueueCampaignMembership(tx, campaign);
  }
  await retireCodes(tx, accountId, links);
  // RETURNING lists only the rows this statement deleted, so a concurrent delete of the same ids
  // cannot make the count go down twice.
  await countLinksRemoved(tx, accountId, links);
  await recordAudit(
    tx,
    links.map((link) => ({
      accountId,
      action: "link.deleted",
      resourceType: "link",
      resourceId: link.id,
      details: { short_code: link.shortCode },
    })),
  );
  return { links, campaignIds };
}

/** After the commit: the relay publishes the events, the redirect drops the codes, rotators skip them. */
export async function afterLinksDeleted(
  deps: LinkWriterDeps,
  { links, campaignIds }: DeletedLinks,
): Promise<void> {
  if (links.length === 0) return;
  deps.onEventsWritten();
  await deps.records.removeMany(links);
  await deps.domainAndRotatorRecords.syncRotators(deps.prisma, campaignIds);
}
