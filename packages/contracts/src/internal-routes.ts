// The internal API (`/internal/*`), declared once like the public routes: each record names its path,
// the service that serves it, the credentials it accepts (docs/security.md) and the shape it answers.
// The serving side mounts each handler on its record (service-kit's mountInternal, which applies the
// credential check the record names); services call through service-kit's internal client, never by
// a path of their own.
import type * as z from "zod";
import { AccountLimits, UpdateAccountLimitsBody } from "./admin.ts";
import { SessionRecord } from "./auth.ts";
import { successEnvelope } from "./envelope.ts";
import { KeyRecord } from "./internal.ts";
import {
  AnalyticsLinkRef,
  LinksSummary,
  LinksSummaryQuery,
  PublicAnalyticsRef,
} from "./internal-analytics.ts";
import { OverlayRecord, OverlaySubmissionBody } from "./overlays.ts";
import { DomainRecord, RedirectRecord, RotatorRecord } from "./redirect-record.ts";

/** The services that call each other; each presents a credential of its own on `/internal/*`. */
export type InternalCaller = "gateway" | "redirect" | "analytics" | "management";

/**
 * The operators' credential (management's ADMIN_TOKEN), which no service holds: a route that takes it
 * takes nothing else, so a record lists either services or this alone.
 */
export type AdminCredential = "admin";

/** Where the internal API lives, on the services' own ports; the public origin serves none of it. */
export const INTERNAL_PREFIX = "/internal";
/** Where the operators' routes live, and only they: the whole prefix takes the admin credential alone. */
export const INTERNAL_ADMIN_PREFIX = `${INTERNAL_PREFIX}/admin`;

/** One internal route; `path` is Express style, each parameter one whole segment. */
export interface InternalRouteDef {
  method: "GET" | "POST" | "PATCH";
  path: string;
  /** The service that serves the route. */
  owner: InternalCaller;
  /**
   * Whose credential the route accepts: services' caller credentials, or the operators' alone;
   * end-user identity never.
   */
  callers: readonly InternalCaller[] | readonly [AdminCredential];
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success answer's body; a 404 answers that there is no such record. */
  response?: z.ZodType;
}

const internalRoute = <const R extends InternalRouteDef>(def: R): R => Object.freeze(def);

export const INTERNAL_ROUTES = {
  // The redirect's lookups on a cache miss (Redis lacks the record).
  resolveLink: internalRoute({
    method: "GET",
    path: "/internal/links/resolve/:code",
    owner: "management",
    callers: ["redirect"],
    response: RedirectRecord,
  }),
  resolveDomain: internalRoute({
    method: "GET",
    path: "/internal/domains/resolve/:host",
    owner: "management",
    callers: ["redirect"],
    response: DomainRecord,
  }),
  resolveRotator: internalRoute({
    method: "GET",
    path: "/internal/rotators/resolve/:slug",
    owner: "management",
    callers: ["redirect"],
    response: RotatorRecord,
  }),
  resolveOverlay: internalRoute({
    method: "GET",
    path: "/internal/overlays/resolve/:id",
    owner: "management",
    callers: ["redirect"],
    response: OverlayRecord,
  }),
  /** A visitor's contact form, with the short code it was posted to (201; 400 invalid; 404 gone). */
  submitOverlay: internalRoute({
    method: "POST",
    path: "/internal/overlays/submissions",
    owner: "management",
    callers: ["redirect"],
    body: OverlaySubmissionBody,
  }),
  // The gateway's authentication on a cache miss, by the SHA-256 hex of the key or session token.
  getKey: internalRoute({
    method: "GET",
    path: "/internal/keys/:hash",
    owner: "management",
    callers: ["gateway"],
    response: KeyRecord,
  }),
  getSession: internalRoute({
    method: "GET",
    path: "/internal/sessions/:hash",
    owner: "management",
    callers: ["gateway"],
    response: SessionRecord,
  }),
  renewSession: internalRoute({
    method: "POST",
    path: "/internal/sessions/:hash/renew",
    owner: "management",
    callers: ["gateway"],
    response: SessionRecord,
  }),
  // Analytics' questions about links (internal-analytics.ts); public ones are the gateway's too.
  getAnalyticsLink: internalRoute({
    method: "GET",
    path: "/internal/analytics/links/:link_id",
    owner: "management",
    callers: ["analytics"],
    response: AnalyticsLinkRef,
  }),
  getPublicAnalyticsLink: internalRoute({
    method: "GET",
    path: "/internal/analytics/public/:short_code",
    owner: "management",
    callers: ["analytics", "gateway"],
    response: PublicAnalyticsRef,
  }),
  getLinksSummary: internalRoute({
    method: "GET",
    path: "/internal/analytics/accounts/:account_id/links-summary",
    owner: "management",
    callers: ["analytics"],
    query: LinksSummaryQuery,
    response: LinksSummary,
  }),
  // The operators' change to an account's plan status, link limit and its keys' rate limits (admin.ts);
  // `./kurz accounts:update` runs the same use case from the command line.
  updateAccountLimits: internalRoute({
    method: "PATCH",
    path: `${INTERNAL_ADMIN_PREFIX}/accounts`,
    owner: "management",
    callers: ["admin"],
    body: UpdateAccountLimitsBody,
    response: successEnvelope(AccountLimits),
  }),
} as const;

/** The parameters a path names (`/x/:id/y/:part` → `{ id: string; part: string }`). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;
