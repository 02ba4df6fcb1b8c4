// The workspace's audit log (docs/workspaces.md, "Audit log"): every change and sign-in, newest first,
// paged by cursor, as JSON or CSV. Read with workspace:admin (admins and owners).
import * as z from "zod";
import { successEnvelope } from "./envelope.ts";
import { queryInt, Timestamp, Uuid, withQueryDefault } from "./primitives.ts";
import { defineRoute } from "./routes.ts";

export const AUDIT_ACTOR_TYPES = ["user", "key", "system"] as const;
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 500;

export const AuditEvent = z
  .object({
    /** Increasing with time; a page's last id is its next cursor. */
    id: z.string().regex(/^\d+$/),
    occurred_at: Timestamp,
    actor: z.object({
      type: z.enum(AUDIT_ACTOR_TYPES),
      id: Uuid.nullable().meta({ description: "The user's or API key's id; null for the system" }),
      label: z.string().meta({ description: "The e-mail or key name at the time" }),
    }),
    action: z.string().meta({ examples: ["link.created", "member.role_changed", "session.sign_in_failed"] }),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    ip_prefix: z
      .string()
      .nullable()
      .meta({ description: "The client's /24 (IPv4) or /48 (IPv6) network; never the address" }),
    user_agent_family: z
      .string()
      .nullable()
      .meta({ examples: ["Chrome on macOS", "curl"] }),
    details: z.record(z.string(), z.unknown()).meta({
      description: "What the change touched: field names, a role; never a secret",
    }),
  })
  .meta({ id: "AuditEvent" });
export type AuditEvent = z.infer<typeof AuditEvent>;

export const AuditLogPage = z
  .object({
    events: z.array(AuditEvent),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: "Pass as `cursor` for the next (older) page; null on the last" }),
  })
  .meta({ id: "AuditLogPage" });
export type AuditLogPage = z.infer<typeof AuditLogPage>;

const Instant = z.iso.datetime({ offset: true });

export const AuditLogQuery = z
  .object({
    actor: Uuid.optional().meta({ description: "Only events by this user or API key" }),
    resource_type: z.string().min(1).max(40).optional(),
    resource_id: z.string().min(1).max(100).optional(),
    action: z.string().min(1).max(60).optional(),
    from: Instant.optional().meta({ description: "Events at or after this time (ISO 8601)" }),
    to: Instant.optional().meta({ description: "Events before this time (ISO 8601)" }),
    cursor: z
      .string()
      .regex(/^\d{1,19}$/, "Expected the next_cursor of a previous page")
      .optional(),
    limit: withQueryDefault(
      queryInt({ min: 1, max: AUDIT_PAGE_MAX }),
      AUDIT_PAGE_DEFAULT,
      AUDIT_PAGE_DEFAULT,
    ),
    format: z
      .enum(["json", "csv"])
      .optional()
      .meta({ description: "csv: every matching event (no paging) as a CSV file; default json" }),
  })
  .refine(({ from, to }) => from === undefined || to === undefined || Date.parse(from) <= Date.parse(to), {
    message: "from must not be after to",
    path: ["from"],
  });
export type AuditLogQuery = z.infer<typeof AuditLogQuery>;

/** The CSV's columns, in order (`actor_*` are the JSON's `actor` members; `details` is JSON). */
export const AUDIT_CSV_COLUMNS = [
  "id",
  "occurred_at",
  "actor_type",
  "actor_id",
  "actor_label",
  "action",
  "resource_type",
  "resource_id",
  "ip_prefix",
  "user_agent_family",
  "details",
] as const;

export const AUDIT_ROUTES = {
  listAuditLog: defineRoute({
    method: "GET",
    path: "/api/v1/audit-log",
    tag: "workspaces",
    summary: "The workspace's audit log, newest first (JSON by cursor, or every match as CSV)",
    auth: "key",
    query: AuditLogQuery,
    status: 200,
    response: successEnvelope(AuditLogPage),
    produces: ["text/csv"],
    errors: ["VALIDATION_ERROR"],
  }),
} as const;
