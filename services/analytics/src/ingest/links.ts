// The link dimension: who owns which link, its code, title, destination, state and sharing settings,
// and which links are deleted (whose late clicks are dropped, and whose click data is purged here).
// Requests do not read it to decide what exists: management answers that at once, while this copy
// follows the outbox (docs/analytics.md, "Read-your-writes"). Versions come from the event time, so
// a redelivered or reordered event never overwrites newer state.
import type { EventBus, Subscription } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import {
  AccountDeletedEvent,
  CampaignMembershipEvent,
  isAccountDeletedMessage,
  isCampaignMembershipMessage,
  LinkEvent,
  TOPICS,
} from "@kurz/contracts";
import type { Logger } from "@kurz/service-kit";
import { dropLateCampaignRows, dropLateLinkRows, eraseAccountAnalytics } from "./account-deletion.ts";
import { chTime } from "./click-rows.ts";
import { ROLLUP_TABLES } from "./rollup-repair.ts";
import { retryWhileTransient } from "./transient.ts";

/** Tables holding a link's clicks; all are emptied when the link is deleted. */
const CLICK_TABLES = ["clicks", ...ROLLUP_TABLES] as const;

export function subscribeLinks(deps: {
  bus: EventBus;
  ch: KurzClickHouse;
  logger: Logger;
}): Promise<Subscription> {
  const stopping = new AbortController();
  const retry = <T>(what: string, fn: () => Promise<T>) =>
    retryWhileTransient(fn, { signal: stopping.signal, logger: deps.logger, what });

  /** The link dimension's rows of `events`, and a deleted link's clicks gone from every table. */
  const applyLinkEvents = async (events: LinkEvent[]) => {
    if (events.length === 0) return;
    const rows = events.map((e) => {
      const link = e.type === "link.deleted" ? undefined : e.link;
      const shared = link?.analytics_shared_fields;
      return {
        link_id: e.link_id,
        account_id: e.account_id,
        short_code: e.short_code,
        title: link?.title ?? "",
        original_url: link?.original_url ?? "",
        is_active: link?.is_active ? 1 : 0,
        expires_at: link?.expires_at ? chTime(link.expires_at) : null,
        analytics_public: link?.analytics_public ? 1 : 0,
        shares_all_fields: shared ? 0 : 1,
        analytics_shared_fields: shared ?? [],
        deleted: e.type === "link.deleted" ? 1 : 0,
        version: Date.parse(e.occurred_at),
        updated_at: chTime(e.occurred_at),
      };
    });
    await retry("link dimension insert", () => deps.ch.insert("links", rows));
    const deleted = [...new Set(events.filter((e) => e.type === "link.deleted").map((e) => e.link_id))];
    if (deleted.length > 0) {
      // A deleted link's code may be reused by a new link, which must start at zero; and a link's
      // click data is deleted with the link (docs/api.md).
      for (const table of CLICK_TABLES) {
        await retry(`delete clicks from ${table}`, () =>
          deps.ch.command(`DELETE FROM ${table} WHERE link_id IN {ids:Array(UUID)}`, { ids: deleted }),
        );
      }
      await dropLateLinkRows(deps.ch, deleted, retry);
    }
  };

  return deps.bus
    .subscribe<unknown>({
      topic: TOPICS.links,
      group: "analytics-links",
      // Fewer, larger inserts (decision 0044): each insert is a new part for chDB to write and merge,
      // and at a few hundred creates a second the default 100 ms wait made ten a second, most of
      // analytics' CPU per create. Nothing waits on this copy (docs/analytics.md, "Read-your-writes"),
      // so it may trail the outbox by up to half a second more.
      maxWaitMs: 500,
      handler: async (messages) => {
        const events: LinkEvent[] = [];
        const campaigns: CampaignMembershipEvent[] = [];
        const accountsDeleted: AccountDeletedEvent[] = [];
        for (const m of messages) {
          // A workspace's deletion shares the topic too; it follows its links' events.
          if (isAccountDeletedMessage(m.value)) {
            const deleted = AccountDeletedEvent.safeParse(m.value);
            if (deleted.success) accountsDeleted.push(deleted.data);
            else deps.logger.warn({ id: m.id }, "skipped an account event this version cannot read");
            continue;
          }
          // Campaign membership shares the topic: analytics learns campaigns from it. Only a message
          // of its type is parsed as one (decision 0044): otherwise every link event would fail that
          // parse first, and a failed parse builds its whole error (a create's event, each time).
          if (isCampaignMembershipMessage(m.value)) {
            const campaign = CampaignMembershipEvent.safeParse(m.value);
            if (campaign.success) {
              campaigns.push(campaign.data);
              continue;
            }
          }
          const parsed = LinkEvent.safeParse(m.value);
          // A shape this version does not know is skipped (logged), not retried forever.
          if (parsed.success) events.push(parsed.data);
          else deps.logger.warn({ id: m.id }, "skipped a links event this version cannot read");
        }
        if (campaigns.length > 0) {
          const rows = campaigns.map((c) => ({
            campaign_id: c.campaign_id,
            account_id: c.account_id,
            link_ids: c.links.map((l) => l.id),
            short_codes: c.links.map((l) => l.short_code),
            deleted: c.deleted ? 1 : 0,
            version: Date.parse(c.occurred_at),
          }));
          await retry("campaign members insert", () => deps.ch.insert("campaign_members", rows));
          await dropLateCampaignRows(
            deps.ch,
            rows.map((r) => r.campaign_id),
            retry,
          );
        }
        await applyLinkEvents(events);
        // Last: the workspace's link events in this batch are in the dimension by now.
        for (const e of accountsDeleted)
          await eraseAccountAnalytics(deps.ch, e.account_id, e.occurred_at, retry, e.campaign_ids);
      },
    })
    .then((subscription) => ({
      stop: async () => {
        stopping.abort();
        await subscription.stop();
      },
    }));
}
