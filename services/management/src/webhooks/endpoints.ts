// Managing an account's webhook endpoints (docs/webhooks.md): create, read, change, re-enable, rotate the
// secret, delete. Every query is scoped by account, so another account's id is simply not found. The
// clear secret leaves only in the answers to create and rotate.
import {
  type CreateWebhookBody,
  fieldErrors,
  MAX_WEBHOOK_ENDPOINTS,
  type UpdateWebhookBody,
  type Webhook,
  type WebhookEventType,
  type WebhookWithSecret,
} from "@kurz/contracts";
import type { PrismaClient, WebhookEndpoint } from "@kurz/db";
import { forbidden, notFound, unauthorized, validation } from "@kurz/service-kit";
import type { PublicAddressGuard } from "../security/public-address-guard.ts";
import { generateWebhookSecret, type SecretBox, secretPrefix } from "./secrets.ts";

export interface WebhookEndpointDeps {
  prisma: PrismaClient;
  secrets: SecretBox;
  guard: PublicAddressGuard;
  /** How long re-enabled endpoints' pending deliveries keep retrying (WEBHOOK_RETRY_WINDOW_MS). */
  retryWindowMs: number;
}

const NOT_FOUND = "Webhook not found";

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
async function assertDeliverable(guard: PublicAddressGuard, raw: string): Promise<void> {
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
    return tx.webhookEndpoint.create({
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
  });
  return { ...toWebhookJson(created), secret };
}

export async function listWebhooks(deps: { prisma: PrismaClient }, accountId: string): Promise<Webhook[]> {
  const rows = await deps.prisma.webhookEndpoint.findMany({
    where: { accountId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toWebhookJson);
}

export async function findWebhook(
  deps: { prisma: PrismaClient },
  accountId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const row = await deps.prisma.webhookEndpoint.findFirst({ where: { id, accountId } });
  if (!row) throw notFound(NOT_FOUND);
  return row;
}

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
