// GET /api/v1/webhooks/:id/deliveries: one row per event and endpoint, with its last attempt.
import type {
  ListWebhookDeliveriesQuery,
  PaginationMeta,
  WebhookDelivery,
  WebhookEventType,
} from "@kurz/contracts";
import type { PrismaClient, WebhookDelivery as Row } from "@kurz/db";
import { publicAttemptError } from "./attempt-error.ts";
import { findWebhook } from "./find-webhook.ts";

const toJson = (d: Row): WebhookDelivery => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType as WebhookEventType,
  status: d.status as WebhookDelivery["status"],
  attempts: d.attempts,
  response_code: d.responseCode,
  error: publicAttemptError(d.error),
  latency_ms: d.latencyMs,
  next_attempt_at: d.status === "pending" ? (d.nextAttemptAt?.toISOString() ?? null) : null,
  last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
  delivered_at: d.deliveredAt?.toISOString() ?? null,
  created_at: d.createdAt.toISOString(),
});

export async function listWebhookDeliveries(
  deps: { prisma: PrismaClient },
  accountId: string,
  id: string,
  query: ListWebhookDeliveriesQuery,
): Promise<{ data: WebhookDelivery[]; meta: PaginationMeta }> {
  await findWebhook(deps, accountId, id);
  const where = { endpointId: id, ...(query.status ? { status: query.status } : {}) };
  const [total, rows] = await Promise.all([
    deps.prisma.webhookDelivery.count({ where }),
    deps.prisma.webhookDelivery.findMany({
      where,
      orderBy: { seq: "desc" },
      skip: (query.page - 1) * query.per_page,
      take: query.per_page,
    }),
  ]);
  return {
    data: rows.map(toJson),
    meta: {
      page: query.page,
      per_page: query.per_page,
      total,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}
