// Deleting a webhook endpoint.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { NOT_FOUND } from "./endpoints.ts";

export async function deleteWebhook(
  deps: { prisma: PrismaClient },
  accountId: string,
  id: string,
): Promise<{ id: string; deleted: true }> {
  // Deliveries and waiting clicks go with it (ON DELETE CASCADE).
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.webhookEndpoint.deleteMany({ where: { id, accountId } });
    if (count === 0) throw notFound(NOT_FOUND);
    await recordAudit(tx, { accountId, action: "webhook.deleted", resourceType: "webhook", resourceId: id });
  });
  return { id, deleted: true };
}
