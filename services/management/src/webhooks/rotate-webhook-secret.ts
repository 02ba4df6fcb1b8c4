// Rotating a webhook endpoint's signing secret.
import type { WebhookWithSecret } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import { NOT_FOUND, toWebhookJson, type WebhookEndpointDeps } from "./endpoints.ts";
import { findWebhook } from "./find-webhook.ts";
import { generateWebhookSecret, secretPrefix } from "./secrets.ts";

export async function rotateWebhookSecret(
  deps: WebhookEndpointDeps,
  accountId: string,
  id: string,
): Promise<WebhookWithSecret> {
  const secret = generateWebhookSecret();
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.webhookEndpoint.updateMany({
      where: { id, accountId },
      data: { secretCiphertext: deps.secrets.seal(secret), secretPrefix: secretPrefix(secret) },
    });
    if (count === 0) throw notFound(NOT_FOUND);
    await recordAudit(tx, {
      accountId,
      action: "webhook.secret_rotated",
      resourceType: "webhook",
      resourceId: id,
    });
  });
  return { ...toWebhookJson(await findWebhook(deps, accountId, id)), secret };
}
