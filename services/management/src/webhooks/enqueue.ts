// Turning bus events into pending work in Postgres (docs/webhooks.md, "Delivery"). Everything here is
// idempotent, because the bus delivers at least once: a delivery is unique per (endpoint, event) and its
// id is derived from both, so a redelivered link event changes nothing; a click is unique per
// (endpoint, click id), so a redelivered click batch cannot be sent twice.
import { createHash } from "node:crypto";
import type { ClickEvent, LinkEvent, WebhookClick, WebhookEventType, WebhookPayload } from "@kurz/contracts";
import type { Prisma, PrismaClient } from "@kurz/db";

export interface EnqueueDeps {
  prisma: PrismaClient;
  /** How long a delivery keeps retrying (WEBHOOK_RETRY_WINDOW_MS). */
  retryWindowMs: number;
  now: () => number;
}

/** The webhook-id of one event to one endpoint: the same on every attempt and every re-enqueue. */
export function deliveryId(endpointId: string, eventId: string): string {
  return `msg_${createHash("sha256").update(`${endpointId}\n${eventId}`).digest("base64url").slice(0, 27)}`;
}

/**
 * The event's id: the one the outbox gave it, or (for events written before ids existed) a digest of
 * its content, which a re-publish of the same outbox row reproduces.
 */
export function linkEventId(event: LinkEvent): string {
  if (event.event_id) return event.event_id;
  const { link_id, type, occurred_at } = event;
  return `h_${createHash("sha256")
    .update(JSON.stringify([link_id, type, occurred_at, event]))
    .digest("hex")
    .slice(0, 32)}`;
}

export function linkPayload(event: LinkEvent): WebhookPayload {
  if (event.type === "link.deleted") {
    return {
      type: event.type,
      timestamp: event.occurred_at,
      data: { link: { id: event.link_id, short_code: event.short_code } },
    };
  }
  const l = event.link;
  const link = {
    id: l.id,
    short_code: l.short_code,
    original_url: l.original_url,
    title: l.title,
    is_active: l.is_active,
    expires_at: l.expires_at,
    has_password: l.has_password,
  };
  if (event.type === "link.broken" || event.type === "link.recovered") {
    return { type: event.type, timestamp: event.occurred_at, data: { link, health: event.health } };
  }
  return { type: event.type, timestamp: event.occurred_at, data: { link } };
}

/** Rows per INSERT: well under Postgres's 65,535 bind parameters at any row width here. */
const INSERT_CHUNK = 1000;

function* chunks<T>(rows: T[]): Generator<T[]> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) yield rows.slice(i, i + INSERT_CHUNK);
}

interface Subscriber {
  id: string;
  accountId: string;
  events: string[];
  createdAt: Date;
}

async function subscribersOf(prisma: PrismaClient, accountIds: string[]): Promise<Subscriber[]> {
  if (accountIds.length === 0) return [];
  // Disabled endpoints record nothing new; re-enabling resumes with what was already pending.
  return prisma.webhookEndpoint.findMany({
    where: { accountId: { in: accountIds }, enabled: true },
    select: { id: true, accountId: true, events: true, createdAt: true },
  });
}

/** Records one pending delivery per subscribed endpoint and event, in the order given (bus order). */
export async function enqueueLinkEvents(deps: EnqueueDeps, events: LinkEvent[]): Promise<number> {
  const endpoints = await subscribersOf(deps.prisma, [...new Set(events.map((e) => e.account_id))]);
  if (endpoints.length === 0) return 0;
  const now = new Date(deps.now());
  const giveUpAt = new Date(now.getTime() + deps.retryWindowMs);
  const rows: Prisma.WebhookDeliveryCreateManyInput[] = [];
  for (const event of events) {
    const eventId = linkEventId(event);
    for (const e of endpoints) {
      if (e.accountId !== event.account_id || !e.events.includes(event.type)) continue;
      // An endpoint hears of what happened after it was created, not of history the bus replays.
      if (Date.parse(event.occurred_at) < e.createdAt.getTime()) continue;
      rows.push({
        id: deliveryId(e.id, eventId),
        endpointId: e.id,
        eventId,
        eventType: event.type satisfies WebhookEventType,
        orderKey: event.link_id,
        payload: linkPayload(event) as object,
        nextAttemptAt: now,
        giveUpAt,
        createdAt: now,
      });
    }
  }
  // Chunks in order, so the sequence numbers follow the bus's order within the batch.
  let count = 0;
  for (const chunk of chunks(rows)) {
    count += (await deps.prisma.webhookDelivery.createMany({ data: chunk, skipDuplicates: true })).count;
  }
  return count;
}

export function webhookClick(c: ClickEvent): WebhookClick {
  return {
    click_id: c.click_id,
    link_id: c.link_id,
    short_code: c.short_code,
    ts: c.ts,
    user_agent: c.user_agent,
    referrer: c.referrer,
    host: c.host,
  };
}

/** Parks each click for every endpoint of its account that takes clicks; the batcher sends them. */
export async function enqueueClicks(deps: EnqueueDeps, clicks: ClickEvent[]): Promise<number> {
  const endpoints = (await subscribersOf(deps.prisma, [...new Set(clicks.map((c) => c.account_id))])).filter(
    (e) => e.events.includes("click"),
  );
  if (endpoints.length === 0) return 0;
  const now = new Date(deps.now());
  const rows: Prisma.WebhookClickCreateManyInput[] = [];
  for (const c of clicks) {
    for (const e of endpoints) {
      if (e.accountId !== c.account_id || Date.parse(c.ts) < e.createdAt.getTime()) continue;
      rows.push({
        endpointId: e.id,
        clickId: c.click_id,
        payload: webhookClick(c) as object,
        ts: new Date(c.ts),
        createdAt: now,
      });
    }
  }
  let count = 0;
  for (const chunk of chunks(rows)) {
    count += (await deps.prisma.webhookClick.createMany({ data: chunk, skipDuplicates: true })).count;
  }
  return count;
}
