// A link's destination health (docs/health.md): its current state and the history of changes, and a
// check on demand. The states are the management's check outcomes (health/check-destination.ts).
import * as z from "zod";
import { successEnvelope } from "./envelope.ts";
import { HealthState } from "./health-state.ts";
import { LinkIdParams } from "./link.ts";
import { Timestamp } from "./primitives.ts";
import { defineRoute } from "./routes.ts";

export * from "./health-state.ts";

export const HealthChange = z.object({
  state: HealthState,
  /** The last answer's status; null when none came (DNS, TLS, timeout, refused...). */
  status_code: z.number().int().nullable(),
  final_url: z.string(),
  checked_at: Timestamp,
});
export type HealthChange = z.infer<typeof HealthChange>;

export const HealthHop = z.object({
  url: z.string(),
  status: z.number().int().nullable(),
  method: z.enum(["HEAD", "GET"]),
});

export const LinkHealthCurrent = HealthChange.extend({
  hops: z.array(HealthHop),
  duration_ms: z.number().int().nonnegative(),
  detail: z.string().nullable(),
});

export const LinkHealth = z.object({
  link_id: z.string(),
  /** Since when the link is broken (two failing checks in a row); null while it is not. */
  broken_since: Timestamp.nullable(),
  /** Failing checks in a row up to the last one (a healthy check resets it, `refused` leaves it). */
  consecutive_failures: z.number().int().nonnegative(),
  /** null until the link's destination is first checked. */
  current: LinkHealthCurrent.nullable(),
  /** The changes of state or final URL, newest first (at most 20). */
  history: z.array(HealthChange),
});
export type LinkHealth = z.infer<typeof LinkHealth>;

const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

export const HEALTH_ROUTES = {
  getLinkHealth: defineRoute({
    method: "GET",
    path: "/api/v1/links/:id/health",
    tag: "links",
    summary: "A link's destination health: the last check's state and the history of changes",
    auth: "key",
    params: LinkIdParams,
    status: 200,
    response: ok(LinkHealth),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  checkLinkHealth: defineRoute({
    method: "POST",
    path: "/api/v1/links/:id/health/check",
    tag: "links",
    summary:
      "Check a link's destination now (a few checks per workspace per minute); answers the health as after the check",
    auth: "key",
    params: LinkIdParams,
    status: 200,
    response: ok(LinkHealth),
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "RATE_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"],
  }),
} as const;
