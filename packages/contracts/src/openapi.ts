import * as z from "zod";
import type {
  oas31,
  ZodOpenApiOperationObject,
  ZodOpenApiOverrideContext,
  ZodOpenApiPathsObject,
  ZodOpenApiResponsesObject,
} from "zod-openapi";
import { createDocument } from "zod-openapi";
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
  ERROR_STATUS,
  type ErrorCode,
  ErrorEnvelope,
  LegacyErrorEnvelope,
  LegacyMessageResponse,
  PaginationMeta,
  RATE_LIMIT_HEADERS,
  successEnvelope,
} from "./envelope.ts";
import {
  LegacyAccountResponse,
  LegacyAccountUpdateBody,
  LegacyAssignParams,
  LegacyCampaignAddBody,
  LegacyCampaignList,
  LegacyCampaignResponse,
  LegacyCampaignUpdateBody,
  LegacyChannelAddBody,
  LegacyChannelAssignParams,
  LegacyChannelList,
  LegacyChannelResponse,
  LegacyChannelUpdateBody,
  LegacyDomainAddBody,
  LegacyDomainAddResponse,
  LegacyDomainList,
  LegacyDomainUpdateBody,
  LegacyDomainVerifyResponse,
  LegacyIdParams,
  LegacyListQuery,
  LegacyOverlayList,
} from "./legacy.ts";
import {
  BulkCreateBody,
  BulkCreateResult,
  BulkDeleteBody,
  BulkDeleteResult,
  CreateLinkBody,
  DeleteLinkResult,
  Link,
  LinkIdParams,
  LinkWithSharedFields,
  ListLinksQuery,
  UpdateLinkBody,
} from "./link.ts";
import { QR_CACHE_CONTROL, QR_CONTENT_TYPES, QrParams, QrQuery } from "./qr.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export type ApiTag = "account" | "links" | "analytics" | "qr" | "legacy";

/** One public API route; `path` is Express style (`/api/v1/links/:id`). */
export interface ApiRoute {
  method: HttpMethod;
  path: string;
  tag: ApiTag;
}

type AnyObject = z.ZodObject<z.ZodRawShape>;

interface RouteSpec extends ApiRoute {
  summary: string;
  /** false for the public analytics route; every other route needs a key. */
  auth?: boolean;
  params?: AnyObject;
  query?: z.ZodType;
  body?: z.ZodType;
  status: 200 | 201;
  /** Response body; omitted for the QR image. */
  response?: z.ZodType;
  /** Route-specific failures; authentication, rate limit and internal errors are added to all. */
  errors: ErrorCode[];
}

const V1 = "/api/v1";
const LEGACY = "/api";

const ok = <D extends z.ZodType>(data: D) => successEnvelope(data);

const ROUTE_SPECS: readonly RouteSpec[] = [
  // -- account --
  {
    method: "GET",
    path: `${V1}/account`,
    tag: "account",
    summary: "Account info",
    status: 200,
    response: ok(Account),
    errors: [],
  },
  {
    method: "GET",
    path: `${V1}/account/usage`,
    tag: "account",
    summary: "Keys and rate limit configuration",
    status: 200,
    response: ok(Usage),
    errors: [],
  },
  {
    method: "POST",
    path: `${V1}/account/keys`,
    tag: "account",
    summary: "Create an API key (the full key is returned once)",
    body: CreateApiKeyBody,
    status: 201,
    response: ok(CreatedApiKey),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  },
  {
    method: "DELETE",
    path: `${V1}/account/keys/:id`,
    tag: "account",
    summary: "Revoke an API key",
    params: ApiKeyIdParams,
    status: 200,
    response: ok(RevokedApiKey),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  // -- links --
  {
    method: "POST",
    path: `${V1}/links`,
    tag: "links",
    summary: "Create link",
    body: CreateLinkBody,
    status: 201,
    response: ok(Link),
    errors: ["VALIDATION_ERROR", "FORBIDDEN", "CONFLICT"],
  },
  {
    method: "GET",
    path: `${V1}/links`,
    tag: "links",
    summary: "List links",
    query: ListLinksQuery,
    status: 200,
    response: successEnvelope(z.array(Link), PaginationMeta),
    errors: ["VALIDATION_ERROR"],
  },
  {
    method: "POST",
    path: `${V1}/links/bulk`,
    tag: "links",
    summary: "Bulk create (non-transactional; per-item failures in data.failed)",
    body: BulkCreateBody,
    status: 201,
    response: ok(BulkCreateResult),
    errors: ["VALIDATION_ERROR", "FORBIDDEN"],
  },
  {
    method: "DELETE",
    path: `${V1}/links/bulk`,
    tag: "links",
    summary: "Bulk delete (unknown or foreign ids are skipped)",
    body: BulkDeleteBody,
    status: 200,
    response: ok(BulkDeleteResult),
    errors: ["VALIDATION_ERROR"],
  },
  {
    method: "GET",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Get link",
    params: LinkIdParams,
    status: 200,
    response: ok(LinkWithSharedFields),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  {
    method: "PATCH",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Update link (original_url and short_code are immutable: 400 BAD_REQUEST)",
    params: LinkIdParams,
    body: UpdateLinkBody,
    status: 200,
    response: ok(Link),
    errors: ["BAD_REQUEST", "VALIDATION_ERROR", "NOT_FOUND"],
  },
  {
    method: "DELETE",
    path: `${V1}/links/:id`,
    tag: "links",
    summary: "Delete link and its click data",
    params: LinkIdParams,
    status: 200,
    response: ok(DeleteLinkResult),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  // -- analytics --
  {
    method: "GET",
    path: `${V1}/analytics/summary`,
    tag: "analytics",
    summary: "Aggregate analytics",
    query: AnalyticsQuery,
    status: 200,
    response: ok(AnalyticsSummary),
    errors: ["VALIDATION_ERROR"],
  },
  {
    method: "GET",
    path: `${V1}/analytics/:link_id`,
    tag: "analytics",
    summary: "Analytics of one link",
    params: AnalyticsLinkParams,
    query: AnalyticsQuery,
    status: 200,
    response: ok(LinkAnalytics),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  {
    method: "GET",
    path: `${V1}/public/analytics/:short_code`,
    tag: "analytics",
    summary: "Public analytics of a link whose owner made them public (shared sections only)",
    auth: false,
    params: PublicAnalyticsParams,
    query: AnalyticsQuery,
    status: 200,
    response: ok(PublicLinkAnalytics),
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  // -- qr --
  {
    method: "GET",
    path: `${V1}/qr/:short_code`,
    tag: "qr",
    summary: "QR code image of the short URL",
    params: QrParams,
    query: QrQuery,
    status: 200,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  },
  // -- legacy --
  legacy("GET", "/account", "Account info", { response: LegacyAccountResponse }),
  legacy("PUT", "/account/update", "Update e-mail and/or password", {
    body: LegacyAccountUpdateBody,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
  }),
  legacy("GET", "/domains", "List branded domains", { query: LegacyListQuery, response: LegacyDomainList }),
  legacy("POST", "/domain/add", "Add a branded domain (pending until verified)", {
    body: LegacyDomainAddBody,
    response: LegacyDomainAddResponse,
    errors: ["VALIDATION_ERROR", "BAD_REQUEST", "CONFLICT"],
  }),
  legacy("POST", "/domain/:id/verify", "Verify a branded domain's DNS TXT record", {
    params: LegacyIdParams,
    response: LegacyDomainVerifyResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", "SERVICE_UNAVAILABLE"],
  }),
  legacy("PUT", "/domain/:id/update", "Update a branded domain", {
    params: LegacyIdParams,
    body: LegacyDomainUpdateBody,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("DELETE", "/domain/:id/delete", "Delete a branded domain", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("GET", "/overlay", "List CTA overlays", { query: LegacyListQuery, response: LegacyOverlayList }),
  legacy("GET", "/campaigns", "List campaigns", { query: LegacyListQuery, response: LegacyCampaignList }),
  legacy("POST", "/campaign/add", "Create a campaign", {
    body: LegacyCampaignAddBody,
    response: LegacyCampaignResponse,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
  }),
  legacy("POST", "/campaign/:campaignid/assign/:linkid", "Attach a link to a campaign", {
    params: LegacyAssignParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("PUT", "/campaign/:id/update", "Update a campaign", {
    params: LegacyIdParams,
    body: LegacyCampaignUpdateBody,
    response: LegacyCampaignResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
  }),
  legacy("DELETE", "/campaign/:id/delete", "Delete a campaign", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("GET", "/channels", "List channels", { query: LegacyListQuery, response: LegacyChannelList }),
  legacy("POST", "/channel/add", "Create a channel", {
    body: LegacyChannelAddBody,
    response: LegacyChannelResponse,
    errors: ["VALIDATION_ERROR"],
  }),
  legacy("PUT", "/channel/:id/update", "Update a channel", {
    params: LegacyIdParams,
    body: LegacyChannelUpdateBody,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("DELETE", "/channel/:id/delete", "Delete a channel", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacy("POST", "/channel/:channelid/assign/:linkid", "Attach a link to a channel", {
    params: LegacyChannelAssignParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
];

function legacy(
  method: HttpMethod,
  path: string,
  summary: string,
  parts: Pick<RouteSpec, "params" | "query" | "body" | "response"> & { errors?: ErrorCode[] },
): RouteSpec {
  return {
    method,
    path: LEGACY + path,
    tag: "legacy",
    summary,
    status: 200,
    response: LegacyMessageResponse,
    ...parts,
    errors: parts.errors ?? [],
  };
}

/** Every route the public API serves, for comparing the document with the implemented routes. */
export const API_ROUTES: readonly ApiRoute[] = Object.freeze(
  ROUTE_SPECS.map(({ method, path, tag }) => Object.freeze({ method, path, tag })),
);

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

const ALWAYS: readonly ErrorCode[] = ["RATE_LIMIT_EXCEEDED", "INTERNAL_ERROR"];
const WITH_KEY: readonly ErrorCode[] = ["UNAUTHORIZED", "KEY_EXPIRED", "KEY_REVOKED"];

const statusKey = (status: number) => String(status) as `${2 | 4 | 5}${string}`;

function responsesFor(route: RouteSpec): ZodOpenApiResponsesObject {
  const headers = z.object(rateLimitHeaders);
  const responses: ZodOpenApiResponsesObject = {};

  if (route.response) {
    responses[statusKey(route.status)] = {
      description: route.status === 201 ? "Created" : "OK",
      headers,
      content: { "application/json": { schema: route.response } },
    };
  } else {
    responses[statusKey(route.status)] = {
      description: "The image itself",
      headers: z.object({
        ...rateLimitHeaders,
        "Cache-Control": z.literal(QR_CACHE_CONTROL),
      }),
      content: {
        [QR_CONTENT_TYPES.png]: { schema: { type: "string", contentMediaType: QR_CONTENT_TYPES.png } },
        [QR_CONTENT_TYPES.svg]: { schema: { type: "string", contentMediaType: QR_CONTENT_TYPES.svg } },
      },
    };
  }

  const codes = [...route.errors, ...(route.auth === false ? [] : WITH_KEY), ...ALWAYS];
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
      headers: status === 429 ? z.object({ ...rateLimitHeaders, ...retryAfterHeader }) : headers,
      content: { "application/json": { schema: envelope } },
    };
  }
  return responses;
}

function operationFor(route: RouteSpec): ZodOpenApiOperationObject {
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    ...(route.auth === false ? { security: [] } : {}),
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
  for (const route of ROUTE_SPECS) {
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
      security: [{ bearerAuth: [] }],
      tags: [
        { name: "account", description: "Account, usage and API keys" },
        { name: "links", description: "Short links" },
        { name: "analytics", description: "Click analytics" },
        { name: "qr", description: "QR code images" },
        { name: "legacy", description: "Older unversioned API under /api" },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "API key: `Authorization: Bearer kurz_live_...`",
          },
        },
      },
      paths,
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
