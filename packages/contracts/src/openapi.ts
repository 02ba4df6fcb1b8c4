import * as z from "zod";
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiOverrideContext,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from "zod-openapi";
import { createDocument } from "zod-openapi";
import { API_VERSION, API_VERSION_HEADER } from "./api-version.ts";
import { SESSION_COOKIE } from "./auth.ts";
import {
  ERROR_STATUS,
  type ErrorCode,
  ErrorEnvelope,
  LegacyErrorEnvelope,
  RATE_LIMIT_HEADERS,
} from "./envelope.ts";
import type { ApiRoute, HttpMethod, RouteDef } from "./routes.ts";
import { ROUTE_DEFS } from "./routes-all.ts";
import { WEBHOOK_OPENAPI } from "./webhooks.ts";

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** `/api/v1/links/:id` → `/api/v1/links/{id}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

// ---- headers and responses ----

const rateLimitHeaders = {
  [RATE_LIMIT_HEADERS.limit]: z
    .int()
    .meta({ header: { id: "RateLimitLimit" }, description: "Maximum requests in the reported window" }),
  [RATE_LIMIT_HEADERS.remaining]: z.int().meta({
    header: { id: "RateLimitRemaining" },
    description: "Requests left in the window with the fewest left",
  }),
  [RATE_LIMIT_HEADERS.reset]: z.int().meta({
    header: { id: "RateLimitReset" },
    description: "Unix timestamp (seconds) when that window resets",
  }),
};
const retryAfterHeader = {
  [RATE_LIMIT_HEADERS.retryAfter]: z
    .int()
    .meta({ header: { id: "RetryAfter" }, description: "Seconds to wait" }),
};

const apiVersionHeader = {
  [API_VERSION_HEADER]: z.literal(API_VERSION).meta({
    header: { id: "ApiVersion" },
    description: "The version of the v1 contract that answered (docs/api.md, Versions)",
  }),
};

const ALWAYS: readonly ErrorCode[] = ["RATE_LIMIT_EXCEEDED", "INTERNAL_ERROR"];
const WITH_KEY: readonly ErrorCode[] = ["UNAUTHORIZED", "KEY_EXPIRED", "KEY_REVOKED"];

const statusKey = (status: number) => String(status) as `${2 | 3 | 4 | 5}${string}`;

function responsesFor(route: RouteDef): ZodOpenApiResponsesObject {
  // Every /api/v1 answer names its version; the older API's do not.
  const always = route.tag === "legacy" ? rateLimitHeaders : { ...rateLimitHeaders, ...apiVersionHeader };
  const headers = z.object(always);
  const responses: ZodOpenApiResponsesObject = {};

  if (route.response) {
    responses[statusKey(route.status)] = {
      description: route.status === 201 ? "Created" : route.status === 202 ? "Accepted" : "OK",
      headers,
      content: {
        "application/json": { schema: route.response },
        ...Object.fromEntries(
          (route.produces ?? []).map((type) => [
            type,
            { schema: { type: "string", contentMediaType: type } },
          ]),
        ),
      },
    };
  } else {
    const types = route.produces ?? [];
    responses[statusKey(route.status)] = {
      description:
        route.status === 302
          ? "A redirect: the browser follows `Location`"
          : types.every((type) => type.startsWith("image/"))
            ? "The image itself"
            : "The body itself",
      headers: z.object({ ...always, ...route.responseHeaders }),
      content: Object.fromEntries(
        types.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]),
      ),
    };
  }

  const codes = [...route.errors, ...(route.auth === "public" ? [] : WITH_KEY), ...ALWAYS];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const envelope = route.tag === "legacy" ? LegacyErrorEnvelope : ErrorEnvelope;
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[statusKey(status)] = {
      description:
        route.tag === "legacy"
          ? statusCodes.join(", ").replaceAll("_", " ").toLowerCase()
          : statusCodes.join(", "),
      headers: status === 429 ? z.object({ ...always, ...retryAfterHeader }) : headers,
      content: { "application/json": { schema: envelope } },
    };
  }
  return responses;
}

function operationFor(route: RouteDef): ZodOpenApiOperationObject {
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === "public" ? { security: [] } : {}),
    ...(route.auth === "session" ? { security: [{ sessionCookie: [] }] } : {}),
    ...(route.params || route.query
      ? {
          requestParams: {
            ...(route.params ? { path: route.params } : {}),
            ...(route.query ? { query: route.query as AnyObject } : {}),
          },
        }
      : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { "application/json": { schema: route.body } } } }
      : {}),
    ...(route.consumes
      ? {
          requestBody: {
            required: true,
            content: Object.fromEntries(
              route.consumes.map((type) => [type, { schema: { type: "string", contentMediaType: type } }]),
            ),
          },
        }
      : {}),
    responses: responsesFor(route),
  };
}

/** `GET /api/v1/links/:id` → `getV1LinksById`, `PUT /api/domain/:id/update` → `putLegacyDomainByIdUpdate`. */
function operationId({ method, path }: ApiRoute): string {
  const words = path
    .replace(/^\/api\/v1\//, "v1/")
    .replace(/^\/api\//, "legacy/")
    .split("/")
    .map((segment) => (segment.startsWith(":") ? `by_${segment.slice(1)}` : segment))
    .flatMap((segment) => segment.split(/[_-]/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

export interface BuildOpenApiOptions {
  /** Public origin of the service, e.g. `https://kurz.example.com` (paths carry /api/v1 and /api). */
  baseUrl: string;
}

export function buildOpenApiDocument({ baseUrl }: BuildOpenApiOptions): oas31.OpenAPIObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTE_DEFS) {
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase() as Lowercase<HttpMethod>] = operationFor(route);
  }
  return createDocument(
    {
      openapi: "3.1.0",
      info: {
        title: "Kurz API",
        version: "1.0.0",
        description:
          "Link shortener API. /api/v1 uses the success/data envelope; the older /api (tag legacy) uses the error/data envelope.",
      },
      servers: [{ url: baseUrl.replace(/\/+$/, "") }],
      // Either scheme: an API key, or the dashboard's session (with X-CSRF-Token on writes).
      security: [{ bearerAuth: [] }, { sessionCookie: [] }],
      tags: [
        { name: "auth", description: "Sign-up, sign-in and sessions (the dashboard's)" },
        { name: "account", description: "Account, usage and API keys" },
        { name: "links", description: "Short links" },
        { name: "analytics", description: "Click analytics" },
        { name: "qr", description: "QR code images" },
        { name: "overlays", description: "CTA overlays and their contact submissions" },
        { name: "webhooks", description: "Webhook endpoints and their delivery log" },
        {
          name: "workspaces",
          description: "Workspaces and their members; a session picks its workspace with X-Workspace-Id",
        },
        { name: "legacy", description: "Older unversioned API under /api" },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "API key: `Authorization: Bearer kurz_live_...`",
          },
          sessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: SESSION_COOKIE,
            description:
              "Session from POST /api/v1/auth/login (named `__Host-kurz_session` when the public origin is https); POST, PUT, PATCH and DELETE also need the header `X-CSRF-Token: <session.csrf_token>`. Ignored when an Authorization header is sent. A session acts in the workspace the header `X-Workspace-Id` names among the user's (default: their first); an API key acts in its own.",
          },
        },
      },
      paths,
      webhooks: WEBHOOK_OPENAPI,
    },
    { override: tidySchema },
  );
}

/**
 * Responses drop `additionalProperties: false` (zod's output default): fields are added to responses
 * over time and a client validating against the document must not break. `z.int()`'s safe-integer
 * bounds are implied by "integer", and zod's long regexes for standard formats repeat the format:
 * both only clutter the document.
 */
const FORMATS_WITHOUT_PATTERN = new Set(["date-time", "date", "uuid", "email"]);

function tidySchema({ jsonSchema, io }: ZodOpenApiOverrideContext): void {
  if (io === "output" && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  if (typeof jsonSchema.format === "string" && FORMATS_WITHOUT_PATTERN.has(jsonSchema.format))
    delete jsonSchema.pattern;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}
