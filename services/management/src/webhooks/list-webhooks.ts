// Listing the account's webhook endpoints.
import type { Webhook } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { toWebhookJson } from "./endpoints.ts";

export async function listWebhooks(deps: { prisma: PrismaClient }, accountId: string): Promise<Webhook[]> {
  const rows = await deps.prisma.webhookEndpoint.findMany({
    where: { accountId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toWebhookJson);
}
