// Deleting an overlay; its links go back to plain redirects.

import { recordAudit } from "../audit/record-audit.ts";
import { type OverlayWriterDeps, overlayNotFound } from "./overlays.ts";

/** Deletes the overlay; its links go back to the plain redirect (their records are rewritten). */
export async function deleteOverlay(deps: OverlayWriterDeps, accountId: string, id: number): Promise<void> {
  const { linkIds, version } = await deps.prisma.$transaction(async (tx) => {
    const carrying = await tx.link.findMany({ where: { overlayId: id, accountId }, select: { id: true } });
    // The tombstone's version, drawn after the row's last under the delete's lock (decision 0052).
    const [deleted] = await tx.$queryRaw<{ version: bigint }[]>`
      DELETE FROM overlays WHERE id = ${id} AND account_id = ${accountId}::uuid
      RETURNING kurz_new_record_version() AS version`;
    if (!deleted) throw overlayNotFound();
    await recordAudit(tx, { accountId, action: "overlay.deleted", resourceType: "overlay", resourceId: id });
    // ON DELETE SET NULL has cleared their overlay_id
    return { linkIds: carrying.map((l) => l.id), version: deleted.version };
  });
  await deps.overlayRecords.remove(id, version);
  if (linkIds.length === 0) return;
  const links = await deps.prisma.link.findMany({ where: { id: { in: linkIds } } });
  await Promise.all(links.map((link) => deps.records.put(link)));
}
