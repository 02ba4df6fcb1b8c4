// Changing a link (PATCH /links/:id): its settings, its smart members (smart-fields.ts), and its overlay,
// whose framing of the destination is checked again when one is set.
import type { UpdateLinkBody } from "@kurz/contracts";
import { type Link, Prisma } from "@kurz/db";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { enqueueLinkEvent, linkEvent } from "../db/outbox.ts";
import { hashPassword } from "../security/passwords.ts";
import type { TitleFetcher } from "../titles/title-fetcher.ts";
import { ownOverlayId } from "./link-targets.ts";
import { type LinkWriterDeps, linkNotFound } from "./link-writer.ts";
import { checkSmartMembers, type SmartCheckDeps, smartMembersIn, smartUpdateData } from "./smart-fields.ts";

type Tx = Prisma.TransactionClient;

export type UpdateLinkDeps = LinkWriterDeps &
  Omit<SmartCheckDeps, "prisma"> & { titles?: Partial<Pick<TitleFetcher, "framingAllowed">> };

/** What an update sets besides UpdateLinkBody's own members, checked against the account first. */
interface LinkExtras {
  overlayId?: number | null;
  frameable?: boolean | null;
}

/**
 * Changes the account's link `id` (others' and unknown ids alike: 404). An overlay must be the account's;
 * setting one checks whether the destination may be framed under it (null without a checker: unknown,
 * so the redirect shows the interstitial).
 */
export async function updateLink(
  deps: UpdateLinkDeps,
  accountId: string,
  id: string,
  body: UpdateLinkBody,
): Promise<Link> {
  // Checked before anything is written; a loop or another workspace's image changes nothing.
  if (smartMembersIn(body).length > 0 || typeof body.broken_url === "string") {
    await checkSmartMembers(deps, accountId, body);
  }
  let extras: LinkExtras = {};
  if (body.overlay_id === null) extras = { overlayId: null };
  else if (body.overlay_id !== undefined) {
    const overlayId = await ownOverlayId(deps.prisma, accountId, body.overlay_id);
    const current = await deps.prisma.link.findFirst({ where: { id, accountId } });
    if (!current) throw linkNotFound();
    extras = { overlayId, frameable: (await deps.titles?.framingAllowed?.(current.originalUrl)) ?? null };
  }
  return applyUpdate(deps, accountId, id, body, extras);
}

const ownedLink = async (tx: Tx, accountId: string, id: string) => {
  // FOR UPDATE: two concurrent PATCHes of one link commit (and write Redis) in a single order.
  const [row] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM links WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
  if (!row) throw linkNotFound();
};

async function applyUpdate(
  deps: LinkWriterDeps,
  accountId: string,
  id: string,
  body: UpdateLinkBody,
  extras: LinkExtras,
): Promise<Link> {
  if (Object.keys(body).length === 0) {
    // Nothing to change: no write, no event, updated_at stays (it records changes, not requests).
    const link = await deps.prisma.link.findFirst({ where: { id, accountId } });
    if (!link) throw linkNotFound();
    return link;
  }
  const data: Prisma.LinkUpdateInput = { ...smartUpdateData(body), updatedAt: new Date() };
  if (body.title !== undefined) data.title = body.title;
  if (body.is_active !== undefined) data.isActive = body.is_active;
  if (body.password !== undefined) {
    data.passwordHash = body.password === null ? null : await hashPassword(body.password);
  }
  if (body.expires_at !== undefined) {
    data.expiresAt = body.expires_at === null ? null : new Date(body.expires_at);
  }
  if (body.analytics_public !== undefined) data.analyticsPublic = body.analytics_public;
  if (body.broken_url !== undefined) data.brokenUrl = body.broken_url;
  if (extras.overlayId !== undefined) {
    data.overlay = extras.overlayId === null ? { disconnect: true } : { connect: { id: extras.overlayId } };
  }
  if (extras.frameable !== undefined) {
    data.frameable = extras.frameable;
    data.frameCheckedAt = extras.frameable === null ? null : new Date();
  }
  if (body.analytics_shared_fields !== undefined) {
    data.analyticsSharedFields =
      body.analytics_shared_fields === null ? Prisma.DbNull : body.analytics_shared_fields;
  }
  const link = await deps.prisma.$transaction(async (tx) => {
    await ownedLink(tx, accountId, id);
    const updated = await tx.link.update({ where: { id }, data });
    await enqueueLinkEvent(tx, linkEvent("link.updated", updated));
    await recordAudit(tx, {
      accountId,
      action: "link.updated",
      resourceType: "link",
      resourceId: id,
      details: changedFields(body),
    });
    return updated;
  });
  deps.onEventsWritten();
  await deps.records.put(link);
  // A link without a click limit has no counter; a limit set again later counts from zero.
  if (body.max_clicks === null) await deps.records.clearClickLimits([link]);
  return link;
}
