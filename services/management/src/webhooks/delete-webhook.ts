// Deleting a webhook endpoint.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { NOT_FOUND } from "./endpoints.ts";

export async function deleteWebhook(
  deps: { prisma: PrismaClient },
  accountId: string,
  id: string,
): Promise<{ id: string; deleted: true }> {
  // Deliveries and waiting clicks go with it (ON DELETE CASCADE).
  const { count } = await deps.prisma.webhookEndpoint.deleteMany({ where: { id, accountId } });
  if (count === 0) throw notFound(NOT_FOUND);
  return { id, deleted: true };
}
