// Deleting a branded domain and, in the same transaction, its links.

import { recordAudit } from "../audit/record-audit.ts";
import { afterLinksDeleted, deleteLinksInTx } from "../links/delete-links.ts";
import type { LinkWriterDeps } from "../links/link-writer.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";
import { domainNotFound } from "./domains.ts";

/**
 * Deletes the domain and every link on it, in one transaction (docs/dashboard-manage.md "Deleting a
 * domain"): a link on a branded domain is served only there, so without the domain it would be an
 * address nobody can follow, still counted against the link limit. Each link leaves as a single delete
 * does (a `link.deleted` event for analytics and webhooks, its code retired, the count lowered), then
 * the redirect drops the codes and the domain's record. Returns how many links went with it.
 *
 * The domain row is locked first: a link being created on it concurrently either committed before
 * (and is deleted here) or waits and then fails its foreign key, so no link survives its domain.
 */
export async function deleteDomain(
  deps: LinkWriterDeps & {
    domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "removeDomain" | "syncRotators">;
  },
  accountId: string,
  id: number,
): Promise<{ linksDeleted: number }> {
  const { host, deleted, version } = await deps.prisma.$transaction(async (tx) => {
    const [domain] = await tx.$queryRaw<{ host: string }[]>`
      SELECT host FROM domains WHERE id = ${id} AND account_id = ${accountId}::uuid FOR UPDATE`;
    if (!domain) throw domainNotFound();
    const links = await tx.link.findMany({ where: { domainId: id, accountId }, select: { id: true } });
    const deleted = await deleteLinksInTx(
      tx,
      accountId,
      links.map((l) => l.id),
    );
    // The tombstone's version, drawn after the row's last under the delete's lock (decision 0052).
    const [gone] = await tx.$queryRaw<{ version: bigint }[]>`
      DELETE FROM domains WHERE id = ${id} RETURNING kurz_new_record_version() AS version`;
    await recordAudit(tx, {
      accountId,
      action: "domain.deleted",
      resourceType: "domain",
      resourceId: id,
      details: { host: domain.host, links_deleted: deleted.links.length },
    });
    return { host: domain.host, deleted, version: gone!.version };
  });
  await afterLinksDeleted(deps, deleted);
  await deps.domainAndRotatorRecords.removeDomain(host, { id, version });
  return { linksDeleted: deleted.links.length };
}
