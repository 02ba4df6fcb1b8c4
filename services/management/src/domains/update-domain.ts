// Changing a branded domain.
import type { LegacyDomainUpdateBody } from "@kurz/contracts";
import { type Domain, isRecordMissing } from "@kurz/db";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { type DomainWriterDeps, domainNotFound } from "./domains.ts";

/** Changes the redirects; null removes one. */
export async function updateDomain(
  deps: Pick<DomainWriterDeps, "prisma" | "domainAndRotatorRecords">,
  accountId: string,
  id: number,
  body: LegacyDomainUpdateBody,
): Promise<Domain> {
  let domain: Domain;
  try {
    domain = await deps.prisma.$transaction(async (tx) => {
      const updated = await tx.domain.update({
        where: { id, accountId },
        data: {
          ...(body.redirectroot !== undefined ? { redirectRoot: body.redirectroot } : {}),
          ...(body.redirect404 !== undefined ? { redirect404: body.redirect404 } : {}),
        },
      });
      await recordAudit(tx, {
        accountId,
        action: "domain.updated",
        resourceType: "domain",
        resourceId: id,
        details: changedFields(body),
      });
      return updated;
    });
  } catch (err) {
    if (isRecordMissing(err)) throw domainNotFound();
    throw err;
  }
  await deps.domainAndRotatorRecords.putDomain(domain); // removes the record unless verified
  return domain;
}
