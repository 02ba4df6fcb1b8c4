// /api/v1/webhooks: an account's webhook endpoints and their delivery log (docs/webhooks.md). The use
// cases live in ../webhooks/endpoints.ts and ../webhooks/delivery-log.ts.
import { ROUTES } from "@kurz/contracts";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { createWebhook } from "../webhooks/create-webhook.ts";
import { deleteWebhook } from "../webhooks/delete-webhook.ts";
import { listWebhookDeliveries } from "../webhooks/delivery-log.ts";
import { toWebhookJson, type WebhookEndpointDeps } from "../webhooks/endpoints.ts";
import { findWebhook } from "../webhooks/find-webhook.ts";
import { listWebhooks } from "../webhooks/list-webhooks.ts";
import { rotateWebhookSecret } from "../webhooks/rotate-webhook-secret.ts";
import { updateWebhook } from "../webhooks/update-webhook.ts";

export function webhooksRoutes(deps: WebhookEndpointDeps): MountedRoute[] {
  return [
    route(ROUTES.createWebhook, async ({ identity: { accountId }, body }) =>
      v1Success(await createWebhook(deps, accountId, body)),
    ),
    route(ROUTES.listWebhooks, async ({ identity: { accountId } }) =>
      v1Success(await listWebhooks(deps, accountId)),
    ),
    route(ROUTES.getWebhook, async ({ identity: { accountId }, params: { id } }) =>
      v1Success(toWebhookJson(await findWebhook(deps, accountId, id))),
    ),
    route(ROUTES.updateWebhook, async ({ identity: { accountId }, params: { id }, body }) =>
      v1Success(await updateWebhook(deps, accountId, id, body)),
    ),
    route(ROUTES.deleteWebhook, async ({ identity: { accountId }, params: { id } }) =>
      v1Success(await deleteWebhook(deps, accountId, id)),
    ),
    route(ROUTES.rotateWebhookSecret, async ({ identity: { accountId }, params: { id } }) =>
      v1Success(await rotateWebhookSecret(deps, accountId, id)),
    ),
    route(ROUTES.listWebhookDeliveries, async ({ identity: { accountId }, params: { id }, query }) => {
      const { data, meta } = await listWebhookDeliveries(deps, accountId, id, query);
      return { success: true as const, data, meta };
    }),
  ];
}
