// Click ingest: bus → ClickHouse in batches. The bus commits only after the insert succeeded, and the
// clicks table deduplicates on click_id, so redelivery never counts a click twice.
import type { EventBus, Subscription } from "@kurz/bus";
import type { KurzClickHouse } from "@kurz/clickhouse";
import { type ClickBatch, type ClickEvent, TOPICS } from "@kurz/contracts";

export interface ClickRow {
  click_id: string;
  link_id: string;
  account_id: string;
  short_code: string;
  ts: string;
  referrer: string | null;
  country: string;
  city: string;
  device_type: string;
  browser: string;
  os: string;
  is_bot: number;
  visitor_hash: string;
  host: string;
}

/** ClickHouse's DateTime64 text form; ISO 'Z' strings parse too, but this is unambiguous everywhere. */
const chTime = (iso: string) => iso.replace("T", " ").replace("Z", "");

export function toClickRow(e: ClickEvent): ClickRow {
  return {
    click_id: e.click_id,
    link_id: e.link_id,
    account_id: e.account_id,
    short_code: e.short_code,
    ts: chTime(e.ts),
    referrer: e.referrer,
    country: "",
    city: "",
    device_type: "",
    browser: "",
    os: "",
    is_bot: 0,
    visitor_hash: "0",
    host: e.host ?? "",
  };
}

export function subscribeClicks(deps: { bus: EventBus; ch: KurzClickHouse }): Promise<Subscription> {
  return deps.bus.subscribe<ClickBatch>({
    topic: TOPICS.clicks,
    group: "analytics-clicks",
    maxBatchSize: 1_000,
    maxWaitMs: 100,
    handler: async (messages) => {
      const rows = messages.flatMap((m) => m.value.clicks.map(toClickRow));
      if (rows.length > 0) await deps.ch.insert("clicks", rows);
    },
  });
}
