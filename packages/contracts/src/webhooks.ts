// Webhooks (docs/webhooks.md): an account's endpoints, the deliveries Kurz makes to them, and
// the payloads it signs (Standard Webhooks). The routes are declared here, beside their shapes, and
// joined into ROUTES by routes-all.ts.
import * as z from "zod";
import { PaginationMeta, successEnvelope } from "./envelope.ts";
import { LinkHealthTransition } from "./events.ts";
import { PER_PAGE_DEFAULT, PER_PAGE_MAX } from "./link.ts";
import { HttpUrl, queryInt, StoredText, Timestamp, Uuid, withQueryDefault } from "./primitives.ts";
import { defineRoute } from "./routes.ts";

export const WEBHOOK_EVENT_TYPES = [
  "link.created",
  "link.updated",
  "link.deleted",
  "link.broken",
  "link.recovered",
  "click",
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** An account's endpoints; each costs a worker's attention, so there is a bound. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
export const WEBHOOK_DESCRIPTION_MAX_LENGTH = 200;
/** `whsec_` + base64 of 32 random bytes (Standard Webhooks: 24 to 64 bytes). */
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{43}=$/;

export const WebhookIdParams = z.object({ id: Uuid });
export type WebhookIdParams = z.infer<typeof WebhookIdParams>;

const EventTypes = z
  .array(WebhookEventType)
  .min(1)
  .transform((types) => [...new Set(types)])
  .meta({ description: "Which events the endpoint receives" });

export const CreateWebhookBody = z
  .object({
    url: HttpUrl.meta({
      description: "Where events are POSTed; must resolve to public addresses only",
      examples: ["https://hooks.example.com/kurz"],
    }),
    events: EventTypes,
    description: StoredText().trim().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .meta({ id: "CreateWebhookBody" });
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .object({
    url: CreateWebhookBody.shape.url.optional(),
    events: EventTypes.optional(),
    description: StoredText().trim().max(WEBHOOK_DESCRIPTION_MAX_LENGTH).nullable().optional(),
    enabled: z.boolean().optional().meta({
      description: "true re-enables an endpoint Kurz disabled after repeated failures",
    }),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, "Give at least one field to change")
  .meta({ id: "UpdateWebhookBody" });
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const Webhook = z
  .object({
    id: Uuid,
    url: z.string(),
    description: z.string().nullable(),
    events: z.array(WebhookEventType),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(["owner", "failing"])
      .nullable()
      .meta({ description: "Why the endpoint is disabled: its owner turned it off, or it kept failing" }),
    disabled_at: Timestamp.nullable(),
    consecutive_failures: z.int().nonnegative(),
    secret_prefix: z.string().meta({ description: "Leading characters of the secret, for identification" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Webhook" });
export type Webhook = z.infer<typeof Webhook>;

/** The only responses that carry the signing secret: creation and rotation. */
export const WebhookWithSecret = Webhook.extend({
  secret: z.string().regex(WEBHOOK_SECRET_PATTERN).meta({
    description: "The signing secret (`whsec_` + base64); shown once, stored encrypted",
  }),
}).meta({ id: "WebhookWithSecret" });
export type WebhookWithSecret = z.infer<typeof WebhookWithSecret>;

export const DeletedWebhook = z.object({ id: Uuid, deleted: z.literal(true) });
export type DeletedWebhook = z.infer<typeof DeletedWebhook>;

export const WebhookDeliveryStatus = z.enum(["pending", "delivered", "failed"]);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: "The `webhook-id` header: the same on every attempt" }),
    event_id: z.string(),
    event_type: WebhookEventType,
    status: WebhookDeliveryStatus.meta({
      description: "pending: not yet accepted (retrying); delivered: a 2xx answer; failed: gave up",
    }),
    attempts: z.int().nonnegative(),
    response_code: z.int().nullable().meta({ description: "HTTP status of the last attempt" }),
    error: z.string().nullable().meta({
      description:
        "Why the last attempt failed, as a category: `HTTP <status>`, or without a status `timeout`, `refused` (connection refused), `connection` (reset or unreachable), `TLS`, `DNS` (the host does not resolve to public addresses only) or `cannot sign`",
    }),
    latency_ms: z.int().nonnegative().nullable(),
    next_attempt_at: Timestamp.nullable(),
    last_attempt_at: Timestamp.nullable(),
    delivered_at: Timestamp.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ListWebhookDeliveriesQuery = z.object({
  page: withQueryDefault(queryInt({ min: 1 }), 1, 1),
  per_page: withQueryDefault(queryInt({ min: 1, max: PER_PAGE_MAX }), PER_PAGE_DEFAULT, PER_PAGE_DEFAULT),
  status: WebhookDeliveryStatus.optional(),
});
export type ListWebhookDeliveriesQuery = z.infer<typeof ListWebhookDeliveriesQuery>;

// ---- what the receiver gets (the body Kurz signs) ----

const LinkData = z.object({
  id: Uuid,
  short_code: z.string(),
  original_url: z.string(),
  title: z.string(),
  is_active: z.boolean(),
  expires_at: Timestamp.nullable(),
  has_password: z.boolean(),
});

/** One click as a receiver sees it: no IP address (Kurz never hands raw IPs on). */
export const WebhookClick = z.object({
  click_id: Uuid,
  link_id: Uuid,
  short_code: z.string(),
  ts: Timestamp,
  user_agent: z.string().nullable(),
  referrer: z.string().nullable(),
  host: z.string().nullable(),
});
export type WebhookClick = z.infer<typeof WebhookClick>;

export const WebhookPayload = z
  .discriminatedUnion("type", [
    z.object({
      type: z.enum(["link.created", "link.updated"]),
      timestamp: Timestamp,
      data: z.object({ link: LinkData }),
    }),
    z.object({
      type: z.literal("link.deleted"),
      timestamp: Timestamp,
      data: z.object({ link: z.object({ id: Uuid, short_code: z.string() }) }),
    }),
    z.object({
      type: z.enum(["link.broken", "link.recovered"]),
      timestamp: Timestamp,
      data: z.object({ link: LinkData, health: LinkHealthTransition }),
    }),
    z.object({
      type: z.literal("click"),
      timestamp: Timestamp,
      data: z.object({ clicks: z.array(WebhookClick).min(1) }),
    }),
  ])
  .meta({ id: "WebhookPayload" });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

// ---- routes ----

const V1 = "/api/v1";
const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

export const WEBHOOK_ROUTES = {
  createWebhook: defineRoute({
    method: "POST",
    path: `${V1}/webhooks`,
    tag: "webhooks",
    summary: "Create a webhook endpoint (its signing secret is returned once)",
    auth: "key",
    body: CreateWebhookBody,
    status: 201,
    response: ok(WebhookWithSecret),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  listWebhooks: defineRoute({
    method: "GET",
    path: `${V1}/webhooks`,
    tag: "webhooks",
    summary: "List webhook endpoints",
    auth: "key",
    status: 200,
    response: ok(z.array(Webhook)),
    errors: [],
  }),
  getWebhook: defineRoute({
    method: "GET",
    path: `${V1}/webhooks/:id`,
    tag: "webhooks",
    summary: "Get a webhook endpoint",
    auth: "key",
    params: WebhookIdParams,
    status: 200,
    response: ok(Webhook),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  updateWebhook: defineRoute({
    method: "PATCH",
    path: `${V1}/webhooks/:id`,
    tag: "webhooks",
    summary: "Update a webhook endpoint (enabled: true re-enables one disabled after failures)",
    auth: "key",
    params: WebhookIdParams,
    body: UpdateWebhookBody,
    status: 200,
    response: ok(Webhook),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  deleteWebhook: defineRoute({
    method: "DELETE",
    path: `${V1}/webhooks/:id`,
    tag: "webhooks",
    summary: "Delete a webhook endpoint and its delivery log",
    auth: "key",
    params: WebhookIdParams,
    status: 200,
    response: ok(DeletedWebhook),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  rotateWebhookSecret: defineRoute({
    method: "POST",
    path: `${V1}/webhooks/:id/rotate-secret`,
    tag: "webhooks",
    summary: "Replace the signing secret (the new one is returned once)",
    auth: "key",
    params: WebhookIdParams,
    status: 200,
    response: ok(WebhookWithSecret),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  listWebhookDeliveries: defineRoute({
    method: "GET",
    path: `${V1}/webhooks/:id/deliveries`,
    tag: "webhooks",
    summary: "The endpoint's delivery log, newest first",
    auth: "key",
    params: WebhookIdParams,
    query: ListWebhookDeliveriesQuery,
    status: 200,
    response: successEnvelope(z.array(WebhookDelivery), PaginationMeta),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;

/** The OpenAPI 3.1 `webhooks` entry: what Kurz POSTs to an endpoint (docs/webhooks.md). */
export const WEBHOOK_OPENAPI = {
  event: {
    post: {
      summary: "An event Kurz sends to your endpoint (Standard Webhooks signing)",
      requestParams: {
        header: z.object({
          "webhook-id": z.string().meta({ description: "Stable per event and endpoint; deduplicate on it" }),
          "webhook-timestamp": z.string().meta({ description: "Seconds since the epoch, of this attempt" }),
          "webhook-signature": z.string().meta({
            description: 'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`',
          }),
        }),
      },
      requestBody: { content: { "application/json": { schema: WebhookPayload } } },
      responses: {
        "200": { description: "Any 2xx accepts the event; anything else is retried" },
      },
    },
  },
} as const;
