// Webhooks inside management, from config: the endpoint use cases' dependencies for the API, and the
// consumers and dispatcher that deliver (docs/decisions/0022-webhook-dispatcher-in-management.md).
import type { EventBus } from "@kurz/bus";
import type { PrismaClient } from "@kurz/db";
import type { Logger } from "@kurz/service-kit";
import type { ManagementConfig } from "../config.ts";
import { PublicAddressGuard, serversResolve, systemResolve } from "../security/public-address-guard.ts";
import { subscribeWebhookInputs } from "./consumers.ts";
import { WebhookDispatcher } from "./dispatcher.ts";
import type { WebhookEndpointDeps } from "./endpoints.ts";
import { SecretBox } from "./secrets.ts";
import { WebhookSender } from "./sender.ts";

export function startWebhooks(
  config: ManagementConfig,
  deps: { prisma: PrismaClient; bus: EventBus; logger: Logger },
) {
  const secrets = new SecretBox(config.WEBHOOK_SECRETS_KEY);
  const resolve =
    config.WEBHOOK_DNS_SERVERS.length > 0 ? serversResolve(config.WEBHOOK_DNS_SERVERS) : systemResolve;
  const guard = new PublicAddressGuard(config.WEBHOOK_ALLOW_HOSTS, resolve);
  const sender = new WebhookSender({ guard, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
  const dispatcher = new WebhookDispatcher(
    { prisma: deps.prisma, sender, secrets, logger: deps.logger },
    {
      pollMs: config.WEBHOOK_POLL_MS,
      retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
      retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      disableAfterFailures: config.WEBHOOK_DISABLE_AFTER_FAILURES,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      clickBatchMax: config.WEBHOOK_CLICK_BATCH_MAX,
      clickBatchMs: config.WEBHOOK_CLICK_BATCH_MS,
      logRetentionMs: config.WEBHOOK_LOG_RETENTION_DAYS * 24 * 60 * 60_000,
      leaseMs: config.WEBHOOK_TIMEOUT_MS + 30_000,
    },
  );
  const endpointDeps: Omit<WebhookEndpointDeps, "prisma"> = {
    secrets,
    guard,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
  };
  return {
    endpointDeps,
    dispatcher,
    start: async () => {
      await subscribeWebhookInputs({
        prisma: deps.prisma,
        bus: deps.bus,
        logger: deps.logger,
        retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
        now: Date.now,
        onEnqueued: () => dispatcher.wake(),
      });
      dispatcher.start();
    },
    stop: async () => {
      await dispatcher.stop();
      await sender.close();
    },
  };
}
