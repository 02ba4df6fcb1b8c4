// DELETE /api/v1/utm-templates/:id.
import type { PrismaClient } from "@kurz/db";
import { recordAudit } from "../audit/record-audit.ts";
import { templateNotFound } from "./utm-templates.ts";

/** Deletes the workspace's template `id`; another workspace's or an unknown id: 404. */
export async function deleteUtmTemplate(prisma: PrismaClient, accountId: string, id: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const removed = await tx.utmTemplate.deleteMany({ where: { id, accountId } });
    if (removed.count === 0) throw templateNotFound();
    await recordAudit(tx, {
      accountId,
      action: "utm_template.deleted",
      resourceType: "utm_template",
      resourceId: id,
    });
  });
}
