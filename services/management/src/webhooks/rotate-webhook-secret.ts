// Rotating a webhook endpoint's signing secret.
import type { WebhookWithSecret } from "@kurz/contracts";
import { notFound } from "@kurz/service-kit";
import { NOT_FOUND, toWebhookJson, type WebhookEndpointDeps } from "./endpoints.ts";
import { findWebhook } from "./find-webhook.ts";
import { generateWebhookSecret, secretPrefix } from "./secrets.ts";

export async function rotateWebhookSecret(
  deps: WebhookEndpointDeps,
  accountId: string,
  id: string,
): Promise<WebhookWithSecret> {
  const secret = generateWebhookSecret();
  const { count } = await deps.prisma.webhookEndpoint.updateMany({
    where: { id, accountId },
    data: { secretCiphertext: deps.secrets.seal(secret), secretPrefix: secretPrefix(secret) },
  });
  if (count === 0) throw notFound(NOT_FOUND);
  return { ...toWebhookJson(await findWebhook(deps, accountId, id)), secret };
}
