// The dispatcher's inputs: link events from the `links` topic (written by management's outbox) and
// click batches from the `clicks` topic, each read by its own consumer group so webhooks neither steal
// nor delay messages from analytics or click totals. A batch is committed only after its pending work
// is in Postgres, so a crash re-reads it, and the enqueue functions make that harmless.
import type { EventBus, Subscription } from "@kurz/bus";
import {
  decodeClickBatch,
  isAccountDeletedMessage,
  isCampaignMembershipMessage,
  type LinkEvent,
  LinkEvent as LinkEventSchema,
  TOPICS,
} from "@kurz/contracts";
import type { Logger } from "@kurz/service-kit";
import { type EnqueueDeps, enqueueClicks, enqueueLinkEvents } from "./enqueue.ts";

export const WEBHOOK_GROUPS = { links: "management-webhooks-links", clicks: "management-webhooks-clicks" };

export async function subscribeWebhookInputs(
  deps: EnqueueDeps & { bus: EventBus; logger: Logger; onEnqueued: () => void },
): Promise<Subscription[]> {
  // Joined together: on Kafka each group join takes a while, and start-up waits for both.
  const links = deps.bus.subscribe<unknown>({
    topic: TOPICS.links,
    group: WEBHOOK_GROUPS.links,
    maxBatchSize: 200,
    handler: async (messages) => {
      const events: LinkEvent[] = [];
      for (const m of messages) {
        // Campaign membership shares the topic (analytics' input); no webhook event comes of it.
        if (isCampaignMembershipMessage(m.value)) continue;
        // So does a workspace's deletion (analytics'); its links' own events came before it.
        if (isAccountDeletedMessage(m.value)) continue;
        const parsed = LinkEventSchema.safeParse(m.value);
        if (parsed.success) events.push(parsed.data);
        else deps.logger.warn({ id: m.id }, "webhooks skipped a link event this version cannot read");
      }
      if ((await enqueueLinkEvents(deps, events)) > 0) deps.onEnqueued();
    },
  });
  const clicks = deps.bus.subscribe<unknown>({
    topic: TOPICS.clicks,
    group: WEBHOOK_GROUPS.clicks,
    maxBatchSize: 20, // up to 200 clicks each
    handler: async (messages) => {
      const all = [];
      for (const m of messages) {
        const batch = decodeClickBatch(m.value);
        if (batch) all.push(...batch);
        else deps.logger.warn({ id: m.id }, "webhooks skipped a click batch this version cannot read");
      }
      if ((await enqueueClicks(deps, all)) > 0) deps.onEnqueued();
    },
  });
  return Promise.all([links, clicks]);
}
