// Changing a webhook endpoint, re-enabling it included.
import type { UpdateWebhookBody, Webhook } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { changedFields, recordAudit } from "../audit/record-audit.ts";
import { assertDeliverable, NOT_FOUND, toWebhookJson, type WebhookEndpointDeps } from "./endpoints.ts";
import { findWebhook } from "./find-webhook.ts";

export async function updateWebhook(
  deps: WebhookEndpointDeps,
  accountId: string,
  id: string,
  body: UpdateWebhookBody,
  now = new Date(),
): Promise<Webhook> {
  const current = await findWebhook(deps, accountId, id);
  if (body.url !== undefined) await assertDeliverable(deps.guard, body.url);
  const reEnable = body.enabled === true && !current.enabled;
  const disable = body.enabled === false && current.enabled;
  const updated = await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.webhookEndpoint.updateMany({
      where: { id, accountId },
      data: {
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: body.events } : {}),
        ...(body.description !== undefined ? { description: body.description || null } : {}),
        ...(reEnable
          ? {
              enabled: true,
              disabledReason: null,
              disabledAt: null,
              consecutiveFailures: 0,
              failingSince: null,
            }
          : {}),
        ...(disable ? { enabled: false, disabledReason: "owner", disabledAt: now } : {}),
      },
    });
    if (count === 0) throw notFound(NOT_FOUND);
    await recordAudit(tx, {
      accountId,
      action: "webhook.updated",
      resourceType: "webhook",
      resourceId: id,
      details: changedFields(body),
    });
    if (reEnable) {
      // What waited while the endpoint was off goes out now, with a fresh retry window.
      await tx.webhookDelivery.updateMany({
        where: { endpointId: id, status: "pending" },
        data: { nextAttemptAt: now, giveUpAt: new Date(now.getTime() + deps.retryWindowMs) },
      });
    }
    return tx.webhookEndpoint.findFirstOrThrow({ where: { id, accountId } });
  });
  return toWebhookJson(updated);
}
