// Every public route, declared once (docs/decisions/0010-routes-declared-once.md): the services mount
// these records (service-kit's mountRoutes parses input and checks output with their schemas), the
// gateway's 405 table and the OpenAPI document are derived from them.
import * as z from "zod";
import { Account, ApiKeyIdParams, CreateApiKeyBody, CreatedApiKey, RevokedApiKey, Usage } from "./account.ts";
import {
  AnalyticsLinkParams,
  AnalyticsQuery,
  AnalyticsSummary,
  LinkAnalytics,
  PublicAnalyticsParams,
  PublicLinkAnalytics,
} from "./analytics.ts";
import {
  ChangeEmailBody,
  ChangePasswordBody,
  EmailChanged,
  EmailChangeRequested,
  EmailChangeTokenParams,
  LoginBody,
  PASSWORD_RESET_MINUTES,
  PasswordChanged,
  PasswordResetRequested,
  RegisterBody,
  Registered,
  RequestPasswordResetBody,
  ResetPasswordBody,
  ResetTokenParams,
  Session,
  SignedOut,
  UpdateAccountBody,
} from "./auth.ts";
import { type ErrorCode, PaginationMeta, successEnvelope } from "./envelope.ts";
import {
  BulkCreateBatch,
  BulkCreateBody,
  BulkCreateResult,
  BulkDeleteBody,
  BulkDeleteResult,
  CreateLinkBody,
  DeleteLinkResult,
  immutableLinkFieldsIn,
  Link,
  LinkIdParams,
  LinkWithSharedFields,
  ListLinksQuery,
  UpdateLinkBody,
} from "./link.ts";
import { QR_CACHE_CONTROL, QR_CONTENT_TYPES, QrParams, QrQuery } from "./qr.ts";
import { SessionList, SessionsEnded } from "./session-list.ts";
import { ConfirmPasswordBody, PasswordConfirmed, SUDO_WINDOW_MINUTES } from "./sudo.ts";
import { SignInResult } from "./two-factor.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type ApiTag =
  | "auth"
  | "account"
  | "links"
  | "analytics"
  | "qr"
  | "overlays"
  | "webhooks"
  | "workspaces"
  | "legacy";
/**
 * Who may call a route; the gateway establishes the caller's account once (docs/api.md, "Sessions"):
 * "key": an API key or a signed-in session (the dashboard uses the same routes as API clients);
 * "session": a signed-in session only (signing out, reading the session);
 * "public": nobody's.
 */
export type RouteAuth = "key" | "session" | "public";
/** The services that answer the public API; the gateway forwards each route to its owner. */
export type ApiService = "management" | "analytics";

/** One public API route; `path` is Express style (`/api/v1/links/:id`). */
export interface ApiRoute {
  method: HttpMethod;
  path: string;
  tag: ApiTag;
}

/** One route's whole contract. Handlers get the parsed input and return the declared response. */
export interface RouteDef extends ApiRoute {
  summary: string;
  auth: RouteAuth;
  /** The service that answers the route (route-dispatch.ts derives the gateway's routing); absent: management. */
  service?: ApiService;
  params?: z.ZodObject<z.ZodRawShape>;
  query?: z.ZodType;
  /** The documented body, parsed before the handler runs unless `bodyParser` is given. */
  body?: z.ZodType;
  /**
   * Parsed instead of `body` when the handler checks parts itself (bulk create reports an invalid
   * item in `failed` rather than failing the batch).
   */
  bodyParser?: z.ZodType;
  /**
   * The body is a file in one of these media types, handed to `bodyParser` as raw bytes (the service
   * reads it with createApp's `rawBodies`); documented as a binary request body.
   */
  consumes?: readonly string[];
  /** Checked before the body schema; a message answers 400 BAD_REQUEST (a link's immutable fields). */
  rejectBody?: (raw: unknown) => string | undefined;
  /** What a malformed path parameter answers instead of VALIDATION_ERROR. */
  invalidParams?: { code: "NOT_FOUND"; message: string };
  /**
   * 202: accepted for later processing (an import job). 302: a browser's step in a redirect flow
   * (single sign-on), a raw reply whose `Location` header is the answer.
   */
  status: 200 | 201 | 202 | 302;
  /** The whole JSON body, envelope included; absent for a route that answers another media type. */
  response?: z.ZodType;
  /**
   * A non-JSON route's media types; beside `response`, the other media types a JSON route answers
   * when asked (the audit log's CSV).
   */
  produces?: readonly string[];
  /** Headers of the success response worth documenting beyond the rate-limit ones. */
  responseHeaders?: Record<string, z.ZodType>;
  /** Route-specific failures; authentication, rate limit and internal errors are added to all. */
  errors: ErrorCode[];
}

/** Keeps the record's literal types (schemas, auth), which the handler's input and result come from. */
export function defineRoute<const R extends RouteDef>(def: R): R {
  return Object.freeze(def);
}

const V1 = "/api/v1";
const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

export const V1_ROUTES = {
  // -- auth (sessions: docs/api.md, "Sessions") --
  register: defineRoute({
    method: "POST",
    path: `${V1}/auth/register`,
    tag: "auth",
    summary: "Create an account, its first API key (shown once) and a session (sets the session cookie)",
    auth: "public",
    body: RegisterBody,
    status: 201,
    response: ok(Registered),
    errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT"],
  }),
  login: defineRoute({
    method: "POST",
    path: `${V1}/auth/login`,
    tag: "auth",
    summary:
      "Sign in with e-mail and password (sets the session cookie); a user with two-factor sign-in gets a challenge for POST /api/v1/auth/login/two-factor instead",
    auth: "public",
    body: LoginBody,
    status: 200,
    response: ok(SignInResult),
    errors: ["VALIDATION_ERROR", "UNAUTHORIZED"],
  }),
  logout: defineRoute({
    method: "POST",
    path: `${V1}/auth/logout`,
    tag: "auth",
    summary: "Sign out: ends this session and clears the cookie",
    auth: "session",
    status: 200,
    response: ok(SignedOut),
    errors: ["FORBIDDEN"],
  }),
  getSession: defineRoute({
    method: "GET",
    path: `${V1}/auth/session`,
    tag: "auth",
    summary: "The current session and its CSRF token",
    auth: "session",
    status: 200,
    response: ok(Session),
    errors: [],
  }),
  confirmPassword: defineRoute({
    method: "POST",
    path: `${V1}/auth/confirm`,
    tag: "auth",
    summary: `Confirm the current password: for ${SUDO_WINDOW_MINUTES} minutes this session may create API keys without sending it again (signing in does not count)`,
    auth: "session",
    body: ConfirmPasswordBody,
    status: 200,
    response: ok(PasswordConfirmed),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  listSessions: defineRoute({
    method: "GET",
    path: `${V1}/auth/sessions`,
    tag: "auth",
    summary: "The account's signed-in sessions, most recently used first",
    auth: "session",
    status: 200,
    response: ok(SessionList),
    errors: [],
  }),
  endAllSessions: defineRoute({
    method: "DELETE",
    path: `${V1}/auth/sessions`,
    tag: "auth",
    summary:
      "Sign out everywhere: ends every session of the account, this one included, and clears the cookie",
    auth: "session",
    status: 200,
    response: ok(SessionsEnded),
    errors: ["FORBIDDEN"],
  }),
  requestPasswordReset: defineRoute({
    method: "POST",
    path: `${V1}/auth/password-reset`,
    tag: "auth",
    summary: `E-mail a password reset link (valid ${PASSWORD_RESET_MINUTES} minutes, once) to the address if it has an account; the same answer either way`,
    auth: "public",
    body: RequestPasswordResetBody,
    status: 202,
    response: ok(PasswordResetRequested),
    errors: ["VALIDATION_ERROR", "RATE_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"],
  }),
  resetPassword: defineRoute({
    method: "POST",
    path: `${V1}/auth/password-reset/:token`,
    tag: "auth",
    summary:
      "Set a new password with a reset link's token: every session of the user ends, and this answer signs in (sets the session cookie; with two-factor sign-in, answers its challenge)",
    auth: "public",
    params: ResetTokenParams,
    invalidParams: { code: "NOT_FOUND", message: "This reset link does not exist, was used or has expired" },
    body: ResetPasswordBody,
    status: 200,
    response: ok(SignInResult),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  changeEmail: defineRoute({
    method: "POST",
    path: `${V1}/auth/email`,
    tag: "auth",
    summary: `Change the signed-in user's e-mail address: a confirmation link (valid ${PASSWORD_RESET_MINUTES} minutes, once) goes to the new address, which takes effect when it is followed`,
    auth: "session",
    body: ChangeEmailBody,
    status: 202,
    response: ok(EmailChangeRequested),
    errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT", "RATE_LIMIT_EXCEEDED", "SERVICE_UNAVAILABLE"],
  }),
  confirmEmailChange: defineRoute({
    method: "POST",
    path: `${V1}/auth/email/:token`,
    tag: "auth",
    summary: "Confirm an e-mail address change with the link's token (the former address is told)",
    auth: "public",
    params: EmailChangeTokenParams,
    invalidParams: { code: "NOT_FOUND", message: "This link does not exist, was used or has expired" },
    status: 200,
    response: ok(EmailChanged),
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
  }),
  // -- account --
  getAccount: defineRoute({
    method: "GET",
    path: `${V1}/account`,
    tag: "account",
    summary: "Account info",
    auth: "key",
    status: 200,
    response: ok(Account),
    errors: [],
  }),
  updateAccount: defineRoute({
    method: "PATCH",
    path: `${V1}/account`,
    tag: "account",
    summary: "Update account settings",
    auth: "key",
    body: UpdateAccountBody,
    status: 200,
    response: ok(Account),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  changePassword: defineRoute({
    method: "POST",
    path: `${V1}/account/password`,
    tag: "account",
    summary:
      "Change the password (the current one required); ends every other session of the account, and with revoke_keys revokes every key",
    auth: "key",
    body: ChangePasswordBody,
    status: 200,
    response: ok(PasswordChanged),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  getUsage: defineRoute({
    method: "GET",
    path: `${V1}/account/usage`,
    tag: "account",
    summary: "Keys and rate limit configuration",
    auth: "key",
    status: 200,
    response: ok(Usage),
    errors: [],
  }),
  createApiKey: defineRoute({
    method: "POST",
    path: `${V1}/account/keys`,
    tag: "account",
    summary:
      "Create an API key (the full key is returned once); a session must send current_password or have confirmed it",
    auth: "key",
    body: CreateApiKeyBody,
    status: 201,
    response: ok(CreatedApiKey),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  revokeApiKey: defineRoute({
    method: "DELETE",
    path: `${V1}/account/keys/:id`,
    tag: "account",
    summary: "Revoke an API key",
    auth: "key",
    params: ApiKeyIdParams,
    status: 200,
    response: ok(RevokedApiKey),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  // -- links --
  createLink: defineRoute({
    method: "POST",
    path: `${V1}/links`,
    tag: "links",
    summary: "Create link",
    auth: "key",
    body: CreateLinkBody,
    status: 201,
    response: ok(Link),
    errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT"],
  }),
  listLinks: defineRoute({
    method: "GET",
    path: `${V1}/links`,
    tag: "links",
    summary: "List links",
    auth: "key",
    query: ListLinksQuery,
    status: 200,
    response: successEnvelope(z.array(Link), PaginationMeta),
    errors: ["VALIDATION_ERROR"],
  }),
  bulkCreateLinks: defineRoute({
    method: "POST",
    path: `${V1}/links/bulk`,
    tag: "links",
    summary: "Bulk create (non-transactional; per-item failures in data.failed)",
    auth: "key",
    body: BulkCreateBody,
    bodyParser: BulkCreateBatch,
    status: 201,
    response: ok(BulkCreateResult),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  }),
  bulkDeleteLinks: defineRoute({
    method: "DELETE",
    path: `${V1}/links/bulk`,
    tag: "links",
    summary: "Bulk delete (unknown or foreign ids are skipped)",
    auth: "key",
    body: BulkDeleteBody,
    status: 200,
    response: ok(BulkDeleteResult),
    errors: ["VALIDATION_ERROR"],
  }),
  getLink: defineRoute({
    method: "GET",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Get link",
    auth: "key",
    params: LinkIdParams,
    status: 200,
    response: ok(LinkWithSharedFields),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  updateLink: defineRoute({
    method: "PATCH",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Update link (original_url and short_code are immutable: 400 BAD_REQUEST)",
    auth: "key",
    params: LinkIdParams,
    body: UpdateLinkBody,
    // A PATCH that tries to change an immutable member is a 400, not a validation error.
    rejectBody: (raw) => {
      const fields = immutableLinkFieldsIn(raw);
      return fields.length > 0
        ? `${fields.join(" and ")} cannot be changed; create a new link instead`
        : undefined;
    },
    status: 200,
    response: ok(Link),
    errors: ["BAD_REQUEST", "VALIDATION_ERROR", "NOT_FOUND"],
  }),
  deleteLink: defineRoute({
    method: "DELETE",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Delete link and its click data",
    auth: "key",
    params: LinkIdParams,
    status: 200,
    response: ok(DeleteLinkResult),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  // -- analytics --
  getAnalyticsSummary: defineRoute({
    method: "GET",
    path: `${V1}/analytics/summary`,
    tag: "analytics",
    service: "analytics",
    summary: "Aggregate analytics",
    auth: "key",
    query: AnalyticsQuery,
    status: 200,
    response: ok(AnalyticsSummary),
    errors: ["VALIDATION_ERROR"],
  }),
  getLinkAnalytics: defineRoute({
    method: "GET",
    path: `${V1}/analytics/:link_id`,
    tag: "analytics",
    service: "analytics",
    summary: "Analytics of one link",
    auth: "key",
    params: AnalyticsLinkParams,
    query: AnalyticsQuery,
    status: 200,
    response: ok(LinkAnalytics),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  getPublicAnalytics: defineRoute({
    method: "GET",
    path: `${V1}/public/analytics/:short_code`,
    tag: "analytics",
    service: "analytics",
    summary: "Public analytics of a link whose owner made them public (shared sections only)",
    auth: "public",
    params: PublicAnalyticsParams,
    // A code that cannot exist answers like a private one, so the endpoint reveals nothing.
    invalidParams: { code: "NOT_FOUND", message: "Link not found." },
    query: AnalyticsQuery,
    status: 200,
    response: ok(PublicLinkAnalytics),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  // -- qr --
  getQr: defineRoute({
    method: "GET",
    path: `${V1}/qr/:short_code`,
    tag: "qr",
    summary: "QR code image of the short URL",
    auth: "key",
    params: QrParams,
    query: QrQuery,
    status: 200,
    produces: [QR_CONTENT_TYPES.png, QR_CONTENT_TYPES.svg],
    responseHeaders: { "Cache-Control": z.literal(QR_CACHE_CONTROL) },
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
