// The link dimension: who owns which link, for ownership checks and top lists. Versions come from the
// event time, so a redelivered or reordered event never overwrites newer state.
import type { EventBus, Subscription } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type LinkEvent, TOPICS } from "@kurz/contracts";

export function subscribeLinks(deps: { bus: EventBus; ch: KurzClickHouse }): Promise<Subscription> {
  return deps.bus.subscribe<LinkEvent>({
    topic: TOPICS.links,
    group: "analytics-links",
    handler: async (messages) => {
      const rows = messages.map(({ value: e }) => {
        const link = e.type === "link.deleted" ? undefined : e.link;
        return {
          link_id: e.link_id,
          account_id: e.account_id,
          short_code: e.short_code,
          title: link?.title ?? "",
          original_url: link?.original_url ?? "",
          is_active: link?.is_active ? 1 : 0,
          deleted: e.type === "link.deleted" ? 1 : 0,
          version: Date.parse(e.occurred_at),
          updated_at: e.occurred_at.replace("T", " ").replace("Z", ""),
        };
      });
      await deps.ch.insert("links", rows);
      for (const e of messages.map((m) => m.value)) {
        if (e.type === "link.deleted") {
          // A deleted link's code may be reused by a new link, which must start at zero.
          await deps.ch.command("DELETE FROM clicks WHERE link_id = {id:UUID}", { id: e.link_id });
        }
      }
    },
  });
}
