// Reading one webhook endpoint.
import type { PrismaClient, WebhookEndpoint } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { NOT_FOUND } from "./endpoints.ts";

export async function findWebhook(
  deps: { prisma: PrismaClient },
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const row = await deps.prisma.webhookEndpoint.findFirst({ where: { id, accountId } });
  if (!row) throw notFound(NOT_FOUND);
  return row;
}
