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
import { defineRoute, type RouteDef } from "./routes.ts";

/** What a legacy route's record says itself; `legacy` adds what every legacy route shares. */
type LegacyParts = Pick<
  RouteDef,
  "method" | "path" | "summary" | "params" | "query" | "body" | "response"
> & {
  /** The refusals of this route beyond those its input brings (see `legacy`). */
  errors?: ErrorCode[];
};

type LegacyRoute<P extends LegacyParts> = {
  tag: "legacy";
  auth: "key";
  status: 200;
  errors: ErrorCode[];
} & Omit<P, "errors" | "response"> & {
    response: P["response"] extends object ? P["response"] : typeof LegacyMessageResponse;
  };

/**
 * A legacy route's record: with a key, answering 200 with `response` (`{error: 0, message}` when none
 * is given). Its documented refusals follow from its input: path params, a query or a body bring
 * VALIDATION_ERROR (they may not parse: a list's `limit` of 0 is refused), and path params NOT_FOUND (the record they name may not exist); `errors` adds
 * the route's own after those.
 */
export function legacy<const P extends LegacyParts>({ method, path, summary, ...parts }: P): LegacyRoute<P> {
  return defineRoute({
    method,
    path,
    tag: "legacy",
    summary,
    auth: "key",
    status: 200,
    ...parts,
    response: parts.response ?? LegacyMessageResponse,
    errors: [
      ...(parts.params || parts.query || parts.body ? (["VALIDATION_ERROR"] as const) : []),
      ...(parts.params ? (["NOT_FOUND"] as const) : []),
      ...(parts.errors ?? []),
    ],
  }) as unknown as LegacyRoute<P>;
}

export const LEGACY_ROUTES = {
  legacyGetAccount: legacy({
    method: "GET",
    path: "/api/account",
    summary: "Account info",
    response: LegacyAccountResponse,
  }),
  legacyUpdateAccount: legacy({
    method: "PUT",
    path: "/api/account/update",
    summary: "Update e-mail and/or password",
    body: LegacyAccountUpdateBody,
    errors: ["CONFLICT"],
  }),
  legacyListDomains: legacy({
    method: "GET",
    path: "/api/domains",
    summary: "List branded domains",
    query: LegacyListQuery,
    response: LegacyDomainList,
  }),
  legacyAddDomain: legacy({
    method: "POST",
    path: "/api/domain/add",
    summary: "Add a branded domain (pending until verified)",
    body: LegacyDomainAddBody,
    response: LegacyDomainAddResponse,
    errors: ["BAD_REQUEST", "CONFLICT"],
  }),
  legacyVerifyDomain: legacy({
    method: "POST",
    path: "/api/domain/:id/verify",
    summary: "Verify a branded domain's DNS TXT record",
    params: LegacyIdParams,
    response: LegacyDomainVerifyResponse,
    errors: ["CONFLICT", "SERVICE_UNAVAILABLE"],
  }),
  legacyUpdateDomain: legacy({
    method: "PUT",
    path: "/api/domain/:id/update",
    summary: "Update a branded domain",
    params: LegacyIdParams,
    body: LegacyDomainUpdateBody,
  }),
  legacyDeleteDomain: legacy({
    method: "DELETE",
    path: "/api/domain/:id/delete",
    summary: "Delete a branded domain and its links",
    params: LegacyIdParams,
    response: LegacyDomainDeleteResponse,
  }),
  legacyListOverlays: legacy({
    method: "GET",
    path: "/api/overlay",
    summary: "List CTA overlays",
    query: LegacyListQuery,
    response: LegacyOverlayDetailList,
  }),
  legacyListCampaigns: legacy({
    method: "GET",
    path: "/api/campaigns",
    summary: "List campaigns",
    query: LegacyListQuery,
    response: LegacyCampaignList,
  }),
  legacyAddCampaign: legacy({
    method: "POST",
    path: "/api/campaign/add",
    summary: "Create a campaign",
    body: LegacyCampaignAddBody,
    response: LegacyCampaignResponse,
    errors: ["CONFLICT"],
  }),
  legacyAssignCampaign: legacy({
    method: "POST",
    path: "/api/campaign/:campaignid/assign/:linkid",
    summary: "Attach a link to a campaign",
    params: LegacyAssignParams,
  }),
  legacyUpdateCampaign: legacy({
    method: "PUT",
    path: "/api/campaign/:id/update",
    summary: "Update a campaign",
    params: LegacyIdParams,
    body: LegacyCampaignUpdateBody,
    response: LegacyCampaignResponse,
    errors: ["CONFLICT"],
  }),
  legacyDeleteCampaign: legacy({
    method: "DELETE",
    path: "/api/campaign/:id/delete",
    summary: "Delete a campaign",
    params: LegacyIdParams,
  }),
  legacyListChannels: legacy({
    method: "GET",
    path: "/api/channels",
    summary: "List channels",
    query: LegacyListQuery,
    response: LegacyChannelList,
  }),
  legacyAddChannel: legacy({
    method: "POST",
    path: "/api/channel/add",
    summary: "Create a channel",
    body: LegacyChannelAddBody,
    response: LegacyChannelResponse,
  }),
  legacyUpdateChannel: legacy({
    method: "PUT",
    path: "/api/channel/:id/update",
    summary: "Update a channel",
    params: LegacyIdParams,
    body: LegacyChannelUpdateBody,
  }),
  legacyDeleteChannel: legacy({
    method: "DELETE",
    path: "/api/channel/:id/delete",
    summary: "Delete a channel",
    params: LegacyIdParams,
  }),
  legacyAssignChannel: legacy({
    method: "POST",
    path: "/api/channel/:channelid/assign/:linkid",
    summary: "Attach a link to a channel",
    params: LegacyChannelAssignParams,
  }),
} as const;
