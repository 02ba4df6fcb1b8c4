// Creating a webhook endpoint, with its signing secret shown once.
import { type CreateWebhookBody, MAX_WEBHOOK_ENDPOINTS, type WebhookWithSecret } from "@kurz/contracts";
import { forbidden, unauthorized } from "@kurz/service-kit";
import { recordCreated } from "../audit/record-audit.ts";
import { assertDeliverable, toWebhookJson, type WebhookEndpointDeps } from "./endpoints.ts";
import { generateWebhookSecret, secretPrefix } from "./secrets.ts";

export async function createWebhook(
  deps: WebhookEndpointDeps,
  accountId: string,
  body: CreateWebhookBody,
): Promise<WebhookWithSecret> {
  await assertDeliverable(deps.guard, body.url);
  const secret = generateWebhookSecret();
  const enabled = body.enabled ?? true;
  const created = await deps.prisma.$transaction(async (tx) => {
    // Serialises creation per account so concurrent requests cannot pass the limit.
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
    if (locked.length === 0) throw unauthorized("This API key's account no longer exists");
    const count = await tx.webhookEndpoint.count({ where: { accountId } });
    if (count >= MAX_WEBHOOK_ENDPOINTS) {
      throw forbidden(`An account can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
    }
    const endpoint = await tx.webhookEndpoint.create({
      data: {
        accountId,
        url: body.url,
        description: body.description || null,
        events: body.events,
        secretCiphertext: deps.secrets.seal(secret),
        secretPrefix: secretPrefix(secret),
        enabled,
        disabledReason: enabled ? null : "owner",
        disabledAt: enabled ? null : new Date(),
      },
    });
    await recordCreated(tx, accountId, "webhook", endpoint.id, { events: body.events });
    return endpoint;
  });
  return { ...toWebhookJson(created), secret };
}
