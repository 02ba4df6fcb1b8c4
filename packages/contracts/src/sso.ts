// Single sign-on with OpenID Connect (docs/workspaces.md, "Single sign-on"): the providers the sign-in
// page offers, the browser's round trip through a provider, and a workspace's own provider with the
// e-mail domains whose people join it on their first sign-in.
import * as z from "zod";
import { successEnvelope } from "./envelope.ts";
import { HttpUrl, StoredText, Timestamp, Uuid } from "./primitives.ts";
import { defineRoute } from "./routes.ts";
import { WorkspaceIdParams } from "./workspaces.ts";

const V1 = "/api/v1";
const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

/** The short-lived cookie that binds a sign-in's state to the browser that started it. */
export const SSO_FLOW_COOKIE = "kurz_sso";
export const SSO_FLOW_COOKIE_TLS = "__Host-kurz_sso";
/** How long a browser has to come back from its provider. */
export const SSO_FLOW_MINUTES = 10;
/** A flow's handle: 256 random bits, base64url (the cookie's value). */
export const SSO_FLOW_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What a failed sign-in tells the sign-in page, in its fragment (`#sso_error=<code>`). */
export const SSO_ERRORS = [
  "not_configured",
  "flow_invalid",
  "provider_error",
  "email_unverified",
  "domain_not_allowed",
  "no_workspace",
] as const;
export type SsoError = (typeof SSO_ERRORS)[number];

export const SSO_DOMAINS_MAX = 20;
/** A lower-case host name with at least one dot, as e-mail domains are compared. */
export const SsoDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(
    /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/,
    "Must be a domain such as example.com",
  );

/** The roles a sign-in may grant: never owner or admin, which a person grants a person. */
export const SsoRole = z.enum(["member", "viewer"]);

export const SsoProvider = z.object({
  name: z.string().meta({ description: "The button's label" }),
  start_url: z.string().meta({ description: "Where the button sends the browser (GET)" }),
});
export const SsoProviders = z.object({ providers: z.array(SsoProvider) }).meta({ id: "SsoProviders" });
export type SsoProviders = z.infer<typeof SsoProviders>;

export const SsoProvidersQuery = z.object({
  workspace: Uuid.optional().meta({ description: "Also the provider this workspace configured, if any" }),
});

export const SsoStartQuery = z.object({
  workspace: Uuid.optional().meta({
    description: "Sign in through this workspace's provider; absent: the server's own (OIDC_ISSUER)",
  }),
});

/** What the provider sends back; every field is checked by the flow, so all are only strings here. */
export const SsoCallbackQuery = z.looseObject({
  state: z.string().max(512).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(512).optional(),
});

export const SsoConfig = z
  .object({
    workspace_id: Uuid,
    issuer: z.string(),
    client_id: z.string(),
    client_secret_set: z.literal(true).meta({ description: "The secret is kept sealed and never shown" }),
    domains: z.array(z.string()),
    default_role: SsoRole,
    redirect_uri: z.string().meta({ description: "Register this at the provider as the redirect URI" }),
    sign_in_url: z.string().meta({ description: "The sign-in page with this workspace's button" }),
    domain_records: z
      .array(z.object({ domain: z.string(), type: z.literal("TXT"), name: z.string(), value: z.string() }))
      .meta({ description: "The TXT record that proves control of each domain (checked when saving)" }),
    updated_at: Timestamp,
  })
  .meta({ id: "SsoConfig" });
export type SsoConfig = z.infer<typeof SsoConfig>;

export const PutSsoConfigBody = z
  .strictObject({
    issuer: HttpUrl,
    client_id: StoredText().min(1).max(255),
    client_secret: StoredText()
      .min(1)
      .max(1024)
      .optional()
      .meta({ description: "Required the first time; absent later: the stored one is kept" }),
    domains: z.array(SsoDomain).min(1).max(SSO_DOMAINS_MAX),
    default_role: SsoRole,
  })
  .meta({ id: "PutSsoConfigBody" });
export type PutSsoConfigBody = z.infer<typeof PutSsoConfigBody>;

export const DeletedSsoConfig = z.object({ workspace_id: Uuid, deleted: z.literal(true) });

const REDIRECT = { Location: z.string().meta({ description: "Where the browser goes next" }) };

export const SSO_ROUTES = {
  listSsoProviders: defineRoute({
    method: "GET",
    path: `${V1}/auth/sso`,
    tag: "auth",
    summary: "The single sign-on providers the sign-in page offers",
    auth: "public",
    query: SsoProvidersQuery,
    status: 200,
    response: ok(SsoProviders),
    errors: ["VALIDATION_ERROR"],
  }),
  startSso: defineRoute({
    method: "GET",
    path: `${V1}/auth/oidc/start`,
    tag: "auth",
    summary: `Begin signing in through an OpenID Connect provider: redirects the browser to it (the flow lasts ${SSO_FLOW_MINUTES} minutes)`,
    auth: "public",
    query: SsoStartQuery,
    status: 302,
    produces: ["text/plain"],
    responseHeaders: REDIRECT,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "SERVICE_UNAVAILABLE"],
  }),
  finishSso: defineRoute({
    method: "GET",
    path: `${V1}/auth/oidc/callback`,
    tag: "auth",
    summary:
      "Where the provider sends the browser back: signs in (sets the session cookie) and redirects to the dashboard, or to the sign-in page with `#sso_error=<code>`",
    auth: "public",
    query: SsoCallbackQuery,
    status: 302,
    produces: ["text/plain"],
    responseHeaders: REDIRECT,
    errors: ["VALIDATION_ERROR", "UNAUTHORIZED", "FORBIDDEN"],
  }),
  getSsoConfig: defineRoute({
    method: "GET",
    path: `${V1}/workspaces/:id/sso`,
    tag: "workspaces",
    summary: "The workspace's single sign-on provider",
    auth: "key",
    params: WorkspaceIdParams,
    status: 200,
    response: ok(SsoConfig),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  putSsoConfig: defineRoute({
    method: "PUT",
    path: `${V1}/workspaces/:id/sso`,
    tag: "workspaces",
    summary:
      "Set the workspace's single sign-on provider (its discovery document is read first) and the e-mail domains whose people join on first sign-in",
    auth: "key",
    params: WorkspaceIdParams,
    body: PutSsoConfigBody,
    status: 200,
    response: ok(SsoConfig),
    errors: ["VALIDATION_ERROR", "BAD_REQUEST", "NOT_FOUND"],
  }),
  deleteSsoConfig: defineRoute({
    method: "DELETE",
    path: `${V1}/workspaces/:id/sso`,
    tag: "workspaces",
    summary: "Remove the workspace's single sign-on provider (members stay; linked identities stay)",
    auth: "key",
    params: WorkspaceIdParams,
    status: 200,
    response: ok(DeletedSsoConfig),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
