import * as z from "zod";
import { HealthState } from "./health-state.ts";
import { AnalyticsSharedField } from "./link.ts";
import { Timestamp, Uuid } from "./primitives.ts";
import { DESTINATION_MAX, DESTINATION_PATTERN, Destination } from "./smart-link.ts";
import { AnyUrl } from "./url.ts";

/**
 * Bus events. Every message carries `v: 1`; fields added later must be optional so old and new
 * services run side by side. Consumers strip unknown fields rather than reject them.
 */

export const TOPICS = { clicks: "clicks", links: "links", clickTotals: "click-totals" } as const;

/** Longer values are truncated by the publisher; the cap bounds a batch message's size. */
export const CLICK_FIELD_MAX = { user_agent: 1024, referrer: 2048, host: 255 } as const;

export const ClickEvent = z.object({
  v: z.literal(1),
  click_id: z.uuid({ version: "v7" }).meta({ description: "Generated at the redirect; the dedup key" }),
  link_id: Uuid,
  account_id: Uuid,
  short_code: z.string(),
  ts: Timestamp,
  ip: z.string().max(64).nullable().meta({ description: "Resolved to a location at ingest, never stored" }),
  user_agent: z.string().max(CLICK_FIELD_MAX.user_agent).nullable(),
  referrer: z.string().max(CLICK_FIELD_MAX.referrer).nullable(),
  host: z.string().max(CLICK_FIELD_MAX.host).nullable(),
  // Added after v1 shipped, hence optional: absent means `default` (the link's original_url).
  destination: Destination.optional().meta({
    description: "Which rule, split arm or fallback sent the click",
  }),
});
export type ClickEvent = z.infer<typeof ClickEvent>;

/**
 * The unit on the `clicks` topic. One message per click costs a third of redirect throughput, and a
 * batch of one link's clicks is no batch under traffic spread over many links, so a batch mixes links
 * that share a partition key (see clickPartitionKey).
 * 200 clicks at the field caps stay under Kafka's default 1 MB message size.
 */
export const CLICK_BATCH_MAX = 200;

/**
 * Publisher rule, not checked here: on a bus whose keys pick partitions (Kafka), all clicks in a
 * batch share clickPartitionKey(link_id) and the batch is published under that key, so a link's
 * clicks stay in order. On a bus that keeps publish order across keys (Redis Streams) a batch may mix
 * keys. Consumers do not depend on it (click ids deduplicate), so a batch that breaks it is still
 * ingested rather than dead-lettered.
 */
export const ClickBatch = z.object({
  v: z.literal(1),
  clicks: z.array(ClickEvent).min(1).max(CLICK_BATCH_MAX),
});
export type ClickBatch = z.infer<typeof ClickBatch>;

/**
 * The same batch without member names: each click a tuple in ClickEvent's member order (after `v`).
 * About a third fewer bytes per click on the bus than v1, which the redirect pays for in encoding,
 * copying and socket writes on every click. The redirect publishes v2; consumers read both
 * through decodeClickBatch.
 */
export const ClickBatchV2 = z.object({
  v: z.literal(2),
  clicks: z
    .array(
      z.tuple([
        ClickEvent.shape.click_id,
        ClickEvent.shape.link_id,
        ClickEvent.shape.account_id,
        ClickEvent.shape.short_code,
        ClickEvent.shape.ts,
        ClickEvent.shape.ip,
        ClickEvent.shape.user_agent,
        ClickEvent.shape.referrer,
        ClickEvent.shape.host,
        // Only when not `default`: a plain link's click stays nine members long.
        Destination.optional(),
      ]),
    )
    .min(1)
    .max(CLICK_BATCH_MAX),
});
export type ClickBatchV2 = z.infer<typeof ClickBatchV2>;

/** What the clicks topic may carry: a v1 or a v2 batch. */
export const ClickBatchMessage = z.discriminatedUnion("v", [ClickBatch, ClickBatchV2]);
export type ClickBatchMessage = z.infer<typeof ClickBatchMessage>;

export function encodeClickBatch(clicks: readonly ClickEvent[]): ClickBatchV2 {
  return {
    v: 2,
    clicks: clicks.map((c) => [
      c.click_id,
      c.link_id,
      c.account_id,
      c.short_code,
      c.ts,
      c.ip,
      c.user_agent,
      c.referrer,
      c.host,
      ...(c.destination !== undefined && c.destination !== "default" ? [c.destination] : []),
    ]) as ClickBatchV2["clicks"],
  };
}

/** The clicks of a v1 or v2 batch; null for anything else (a consumer dead-letters it). */
export function decodeClickBatch(value: unknown): ClickEvent[] | null {
  const fast = decodeClickBatchV2Exactly(value);
  if (fast !== null) return fast;
  const parsed = ClickBatchMessage.safeParse(value);
  if (!parsed.success) return null;
  if (parsed.data.v === 1) return parsed.data.clicks;
  return parsed.data.clicks.map(clickOfTuple);
}

/** A v2 batch's tuple, its members checked, as the click it stands for (no destination: the default). */
function clickOfTuple(t: ClickBatchV2["clicks"][number]): ClickEvent {
  const [click_id, link_id, account_id, short_code, ts, ip, user_agent, referrer, host, destination] = t;
  const click: ClickEvent = {
    v: 1,
    click_id,
    link_id,
    account_id,
    short_code,
    ts,
    ip,
    user_agent,
    referrer,
    host,
  };
  if (destination !== undefined) click.destination = destination;
  return click;
}

// The checks of ClickBatchV2's members, with zod's own patterns, so that the fast path below accepts
// nothing ClickBatchV2 refuses.
const CLICK_ID_PATTERN = z.regexes.uuid(7);
const UUID_PATTERN = z.regexes.uuid();
const TS_PATTERN = z.regexes.datetime({ precision: 3 });

const nullableString = (v: unknown, max: number): v is string | null =>
  v === null || (typeof v === "string" && v.length <= max);

/**
 * A v2 batch checked member by member as ClickBatchV2 checks it, about a tenth of zod's cost on the
 * consumer's hot path; null when the value is not one it accepts (anything else, valid or not, is then
 * left to zod, so its verdict stands for every other shape).
 */
function decodeClickBatchV2Exactly(value: unknown): ClickEvent[] | null {
  if (typeof value !== "object" || value === null || (value as { v?: unknown }).v !== 2) return null;
  const tuples = (value as { clicks?: unknown }).clicks;
  if (!Array.isArray(tuples) || tuples.length < 1 || tuples.length > CLICK_BATCH_MAX) return null;
  const out: ClickEvent[] = new Array(tuples.length);
  for (let i = 0; i < tuples.length; i++) {
    const t: unknown = tuples[i];
    if (!Array.isArray(t) || (t.length !== 9 && t.length !== 10)) return null;
    const [click_id, link_id, account_id, short_code, ts, ip, user_agent, referrer, host, destination] = t;
    if (
      typeof click_id !== "string" ||
      !CLICK_ID_PATTERN.test(click_id) ||
      typeof link_id !== "string" ||
      !UUID_PATTERN.test(link_id) ||
      typeof account_id !== "string" ||
      !UUID_PATTERN.test(account_id) ||
      typeof short_code !== "string" ||
      typeof ts !== "string" ||
      !TS_PATTERN.test(ts) ||
      !nullableString(ip, 64) ||
      !nullableString(user_agent, CLICK_FIELD_MAX.user_agent) ||
      !nullableString(referrer, CLICK_FIELD_MAX.referrer) ||
      !nullableString(host, CLICK_FIELD_MAX.host)
    ) {
      return null;
    }
    if (
      t.length === 10 &&
      (typeof destination !== "string" ||
        destination.length > DESTINATION_MAX ||
        !DESTINATION_PATTERN.test(destination))
    ) {
      return null;
    }
    out[i] = clickOfTuple(t as ClickBatchV2["clicks"][number]);
  }
  return out;
}

/** Number of distinct keys click batches are spread over: enough to balance any sane partition count. */
export const CLICK_PARTITION_KEYS = 64;

/**
 * The bus key for a click: a fixed function of the link id (FNV-1a, 32-bit), so every click of one
 * link lands on the same partition/stream, as a key of the link id itself would, while the redirect
 * needs at most CLICK_PARTITION_KEYS messages per flush. Every service must use this one function.
 */
export function clickPartitionKey(linkId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < linkId.length; i++) {
    hash ^= linkId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `c${(hash >>> 0) % CLICK_PARTITION_KEYS}`;
}

/**
 * Click events as bus messages of at most CLICK_BATCH_MAX clicks each, in click order.
 *
 * On a bus whose keys pick partitions (Kafka), clicks are grouped by partition key (a hash of the link
 * id), so each link's clicks stay in one partition: a flush costs up to CLICK_PARTITION_KEYS messages.
 * On a bus that keeps publish order whatever the key (Redis Streams) that grouping buys nothing, and
 * consecutive clicks share a message: a flush of 1,000 clicks is 5 XADDs instead of ~64, and its bus
 * cost fell from 0.86 to 0.33 µs a click (docs/benchmarks/2026-11.md). Such a message is published under its
 * first click's key.
 */
export function clickMessages(events: ClickEvent[], partitionsByKey = true) {
  const messages: { key: string; value: ClickBatchV2 }[] = [];
  if (!partitionsByKey) {
    for (let i = 0; i < events.length; i += CLICK_BATCH_MAX) {
      const clicks = events.slice(i, i + CLICK_BATCH_MAX);
      messages.push({ key: clickPartitionKey(clicks[0]!.link_id), value: encodeClickBatch(clicks) });
    }
    return messages;
  }
  const groups = new Map<string, ClickEvent[]>();
  for (const e of events) {
    const key = clickPartitionKey(e.link_id);
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  for (const [key, clicks] of groups) {
    for (let i = 0; i < clicks.length; i += CLICK_BATCH_MAX) {
      messages.push({ key, value: encodeClickBatch(clicks.slice(i, i + CLICK_BATCH_MAX)) });
    }
  }
  return messages;
}

/** What the redirect and analytics need of a link. No password hash: that travels only in RedirectRecord. */
export const LinkRecord = z.object({
  id: Uuid,
  account_id: Uuid,
  short_code: z.string(),
  original_url: AnyUrl(),
  title: z.string(),
  is_active: z.boolean(),
  expires_at: Timestamp.nullable(),
  has_password: z.boolean(),
  // Added after v1 shipped, hence optional: analytics serves public analytics from these.
  analytics_public: z.boolean().optional(),
  analytics_shared_fields: z
    .array(AnalyticsSharedField)
    .nullable()
    .optional()
    .meta({ description: "null shares every section" }),
});
export type LinkRecord = z.infer<typeof LinkRecord>;

const LinkEventBase = {
  v: z.literal(1),
  link_id: Uuid,
  account_id: Uuid,
  short_code: z.string(),
  occurred_at: Timestamp.meta({
    description: "When management committed the change; orders updates of one link",
  }),
  // Added after v1 shipped, hence optional: the webhook id of the event (the same on a re-publish).
  event_id: Uuid.optional(),
};

/** The health check that broke or recovered a link (docs/health.md). */
export const LinkHealthTransition = z.object({
  state: HealthState,
  status_code: z.int().nullable(),
  final_url: z.string(),
  checked_at: Timestamp,
});
export type LinkHealthTransition = z.infer<typeof LinkHealthTransition>;

/**
 * Keyed by link id on the `links` topic. created/updated carry the whole record: consumers upsert it.
 * broken/recovered carry it too (as it stood at the check) and the check that decided.
 */
export const LinkEvent = z.discriminatedUnion("type", [
  z.object({ ...LinkEventBase, type: z.literal("link.created"), link: LinkRecord }),
  z.object({ ...LinkEventBase, type: z.literal("link.updated"), link: LinkRecord }),
  z.object({ ...LinkEventBase, type: z.literal("link.deleted") }),
  z.object({
    ...LinkEventBase,
    type: z.literal("link.broken"),
    link: LinkRecord,
    health: LinkHealthTransition,
  }),
  z.object({
    ...LinkEventBase,
    type: z.literal("link.recovered"),
    link: LinkRecord,
    health: LinkHealthTransition,
  }),
]);
export type LinkEvent = z.infer<typeof LinkEvent>;

/**
 * Absolute totals, so a redelivered message cannot double-count. Totals only grow, so a consumer
 * keeps the larger of the stored and the received value and a reordered message cannot lower a count.
 */
export const ClickTotals = z.object({
  v: z.literal(1),
  totals: z.array(z.object({ link_id: Uuid, account_id: Uuid, clicks: z.int().nonnegative() })).min(1),
});
export type ClickTotals = z.infer<typeof ClickTotals>;

/** The message schema of each topic, for publishers and consumers that validate at the edge. */
export const TOPIC_SCHEMAS = {
  [TOPICS.clicks]: ClickBatchMessage,
  [TOPICS.links]: LinkEvent,
  [TOPICS.clickTotals]: ClickTotals,
} as const;
