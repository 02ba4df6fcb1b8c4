// What the webhook endpoint use cases share (docs/webhooks.md): their dependencies and the JSON of an
// endpoint. Every query is scoped by account, so another account's id is simply not found. The clear
// secret leaves only in the answers to create and rotate.
import { fieldErrors, type Webhook, type WebhookEventType } from "@kurz/contracts";
import type { PrismaClient, WebhookEndpoint } from "@kurz/db";
import { validation } from "@kurz/service-kit";
import type { PublicAddressGuard } from "../security/public-address-guard.ts";
import type { SecretBox } from "./secrets.ts";

export interface WebhookEndpointDeps {
  prisma: PrismaClient;
  secrets: SecretBox;
  guard: PublicAddressGuard;
  /** How long re-enabled endpoints' pending deliveries keep retrying (WEBHOOK_RETRY_WINDOW_MS). */
  retryWindowMs: number;
}

export const NOT_FOUND = "Webhook not found";

export function toWebhookJson(e: WebhookEndpoint): Webhook {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events as WebhookEventType[],
    enabled: e.enabled,
    disabled_reason: (e.disabledReason as Webhook["disabled_reason"]) ?? null,
    disabled_at: e.disabledAt?.toISOString() ?? null,
    consecutive_failures: e.consecutiveFailures,
    secret_prefix: e.secretPrefix,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

/** The one refusal of a URL whose host is not, or does not resolve to, public addresses only. */
export const NOT_DELIVERABLE = "The URL's host must resolve to public addresses only";

/**
 * Refuses a URL Kurz must never call: credentials in it (they would show in every listing), or a host
 * that is, or resolves to, anything but public addresses. Checked again on every delivery attempt.
 */
export async function assertDeliverable(guard: PublicAddressGuard, raw: string): Promise<void> {
  const url = new URL(raw);
  const refuse = (message: string) => validation(message, fieldErrors({ url: message }));
  if (url.username !== "" || url.password !== "") throw refuse("The URL must not contain credentials");
  // One answer whether the host does not resolve or resolves to a non-public address: two would tell
  // a caller which internal names exist (`http://vm/` refused as private, an unknown name as unresolved).
  try {
    guard.assertUrl(url);
    await guard.addressesOf(url.hostname);
  } catch {
    throw refuse(NOT_DELIVERABLE);
  }
}
