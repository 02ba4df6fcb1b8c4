// The internal API (`/internal/*`, service to service), declared once like the public routes: each
// record names its path, the services whose caller credential it accepts (docs/security.md) and the
// shape it answers. Callers reach it through service-kit's internal client, never by a path of their own.
import type * as z from "zod";
import { SessionRecord } from "./auth.ts";
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

/** One internal route; `path` is Express style, each parameter one whole segment. */
export interface InternalRouteDef {
  method: "GET" | "POST";
  path: string;
  /** Whose caller credential the route accepts; end-user identity never. */
  callers: readonly InternalCaller[];
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
    callers: ["redirect"],
    response: RedirectRecord,
  }),
  resolveDomain: internalRoute({
    method: "GET",
    path: "/internal/domains/resolve/:host",
    callers: ["redirect"],
    response: DomainRecord,
  }),
  resolveRotator: internalRoute({
    method: "GET",
    path: "/internal/rotators/resolve/:slug",
    callers: ["redirect"],
    response: RotatorRecord,
  }),
  resolveOverlay: internalRoute({
    method: "GET",
    path: "/internal/overlays/resolve/:id",
    callers: ["redirect"],
    response: OverlayRecord,
  }),
  /** A visitor's contact form, with the short code it was posted to (201; 400 invalid; 404 gone). */
  submitOverlay: internalRoute({
    method: "POST",
    path: "/internal/overlays/submissions",
    callers: ["redirect"],
    body: OverlaySubmissionBody,
  }),
  // The gateway's authentication on a cache miss, by the SHA-256 hex of the key or session token.
  getKey: internalRoute({
    method: "GET",
    path: "/internal/keys/:hash",
    callers: ["gateway"],
    response: KeyRecord,
  }),
  getSession: internalRoute({
    method: "GET",
    path: "/internal/sessions/:hash",
    callers: ["gateway"],
    response: SessionRecord,
  }),
  renewSession: internalRoute({
    method: "POST",
    path: "/internal/sessions/:hash/renew",
    callers: ["gateway"],
    response: SessionRecord,
  }),
  // Analytics' questions about links (internal-analytics.ts); public ones are the gateway's too.
  getAnalyticsLink: internalRoute({
    method: "GET",
    path: "/internal/analytics/links/:link_id",
    callers: ["analytics"],
    response: AnalyticsLinkRef,
  }),
  getPublicAnalyticsLink: internalRoute({
    method: "GET",
    path: "/internal/analytics/public/:short_code",
    callers: ["analytics", "gateway"],
    response: PublicAnalyticsRef,
  }),
  getLinksSummary: internalRoute({
    method: "GET",
    path: "/internal/analytics/accounts/:account_id/links-summary",
    callers: ["analytics"],
    query: LinksSummaryQuery,
    response: LinksSummary,
  }),
} as const;
export type InternalRouteKey = keyof typeof INTERNAL_ROUTES;

/** The parameters a path names (`/x/:id/y/:part` → `{ id: string; part: string }`). */
export type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, never>;
