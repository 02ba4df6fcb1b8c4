// The older unversioned API's routes (docs/legacy-api.md), declared once like the v1 ones (routes.ts). Every
// legacy route needs a key and answers 200; most answer only `{error: 0, message}`.
import type { ErrorCode } from "./envelope.ts";
import { LegacyMessageResponse } from "./envelope.ts";
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
  LegacyDomainDeleteResponse,
  LegacyDomainList,
  LegacyDomainUpdateBody,
  LegacyDomainVerifyResponse,
  LegacyIdParams,
  LegacyListQuery,
} from "./legacy.ts";
import { LegacyOverlayDetailList } from "./overlays.ts";
import { defineRoute, type HttpMethod, type RouteDef } from "./routes.ts";

const LEGACY = "/api";

type LegacyParts = Pick<RouteDef, "params" | "query" | "body" | "response"> & { errors?: ErrorCode[] };

type LegacyRoute<M extends HttpMethod, P extends LegacyParts> = {
  method: M;
  path: string;
  tag: "legacy";
  summary: string;
  auth: "key";
  status: 200;
  errors: ErrorCode[];
} & Omit<P, "errors" | "response"> & {
    response: P["response"] extends object ? P["response"] : typeof LegacyMessageResponse;
  };

export function legacy<const M extends HttpMethod, const P extends LegacyParts>(
  method: M,
  path: string,
  summary: string,
  parts: P,
): LegacyRoute<M, P> {
  return defineRoute({
    method,
    path: LEGACY + path,
    tag: "legacy",
    summary,
    auth: "key",
    status: 200,
    ...parts,
    response: parts.response ?? LegacyMessageResponse,
    errors: parts.errors ?? [],
  }) as unknown as LegacyRoute<M, P>;
}

export const LEGACY_ROUTES = {
  legacyGetAccount: legacy("GET", "/account", "Account info", { response: LegacyAccountResponse }),
  legacyUpdateAccount: legacy("PUT", "/account/update", "Update e-mail and/or password", {
    body: LegacyAccountUpdateBody,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
  }),
  legacyListDomains: legacy("GET", "/domains", "List branded domains", {
    query: LegacyListQuery,
    response: LegacyDomainList,
  }),
  legacyAddDomain: legacy("POST", "/domain/add", "Add a branded domain (pending until verified)", {
    body: LegacyDomainAddBody,
    response: LegacyDomainAddResponse,
    errors: ["VALIDATION_ERROR", "BAD_REQUEST", "CONFLICT"],
  }),
  legacyVerifyDomain: legacy("POST", "/domain/:id/verify", "Verify a branded domain's DNS TXT record", {
    params: LegacyIdParams,
    response: LegacyDomainVerifyResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT", "SERVICE_UNAVAILABLE"],
  }),
  legacyUpdateDomain: legacy("PUT", "/domain/:id/update", "Update a branded domain", {
    params: LegacyIdParams,
    body: LegacyDomainUpdateBody,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyDeleteDomain: legacy("DELETE", "/domain/:id/delete", "Delete a branded domain and its links", {
    params: LegacyIdParams,
    response: LegacyDomainDeleteResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyListOverlays: legacy("GET", "/overlay", "List CTA overlays", {
    query: LegacyListQuery,
    response: LegacyOverlayDetailList,
  }),
  legacyListCampaigns: legacy("GET", "/campaigns", "List campaigns", {
    query: LegacyListQuery,
    response: LegacyCampaignList,
  }),
  legacyAddCampaign: legacy("POST", "/campaign/add", "Create a campaign", {
    body: LegacyCampaignAddBody,
    response: LegacyCampaignResponse,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
  }),
  legacyAssignCampaign: legacy(
    "POST",
    "/campaign/:campaignid/assign/:linkid",
    "Attach a link to a campaign",
    {
      params: LegacyAssignParams,
      errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    },
  ),
  legacyUpdateCampaign: legacy("PUT", "/campaign/:id/update", "Update a campaign", {
    params: LegacyIdParams,
    body: LegacyCampaignUpdateBody,
    response: LegacyCampaignResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
  }),
  legacyDeleteCampaign: legacy("DELETE", "/campaign/:id/delete", "Delete a campaign", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyListChannels: legacy("GET", "/channels", "List channels", {
    query: LegacyListQuery,
    response: LegacyChannelList,
  }),
  legacyAddChannel: legacy("POST", "/channel/add", "Create a channel", {
    body: LegacyChannelAddBody,
    response: LegacyChannelResponse,
    errors: ["VALIDATION_ERROR"],
  }),
  legacyUpdateChannel: legacy("PUT", "/channel/:id/update", "Update a channel", {
    params: LegacyIdParams,
    body: LegacyChannelUpdateBody,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyDeleteChannel: legacy("DELETE", "/channel/:id/delete", "Delete a channel", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyAssignChannel: legacy("POST", "/channel/:channelid/assign/:linkid", "Attach a link to a channel", {
    params: LegacyChannelAssignParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
} as const;
