// /api/v1/links and /api/v1/links/:id: the link resource (SPEC 4.1). Bulk lives in bulk.ts. The records
// in contracts (ROUTES) parse the input and check the answers; these handlers only call the use cases.
import { type AnalyticsSharedField, ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import {
  aliasTakenError,
  assertRoomFor,
  createLink,
  deleteLinks,
  getLink,
  type LinkExtras,
  type LinkWriterDeps,
  linkNotFound,
  unavailableAliases,
  updateLink,
} from "../links/create-links.ts";
import { linkWithDomain } from "../links/get-link.ts";
import { toLinkJson } from "../links/link-json.ts";
import { domainFilterId, ownOverlayId, ownVerifiedDomainId } from "../links/link-targets.ts";
import { listLinks } from "../links/list-links.ts";
import { accountDomains, domainsForLink } from "../links/short-url.ts";
import type { TitleFetcher } from "../titles/title-fetcher.ts";

export interface LinksDeps extends LinkWriterDeps {
  prisma: PrismaClient;
  baseUrl: string;
  titles: Pick<TitleFetcher, "titleFor" | "enabled"> & Partial<Pick<TitleFetcher, "framingAllowed">>;
}

export function linksRoutes(deps: LinksDeps): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.createLink, async ({ identity: { accountId }, body }) => {
      // A past expires_at is accepted (the link is created expired and answers 410), the same rule
      // as PATCH: SnipURL's documented examples carry dates that have since passed (docs/api.md).
      // Cheap refusals first, so a doomed request never waits for a title fetch, a password hash or an
      // alias check. With none of these, createLink's own counter update refuses as early (and exactly),
      // so the extra read is skipped.
      const slowFirst =
        body.title === undefined || body.password !== undefined || body.custom_alias !== undefined;
      if (slowFirst) await assertRoomFor(prisma, accountId, 1);
      if (
        body.custom_alias !== undefined &&
        (await unavailableAliases(deps, accountId, [body.custom_alias])).size > 0
      ) {
        throw aliasTakenError(body.custom_alias);
      }
      const overlayId =
        body.overlay_id !== undefined ? await ownOverlayId(prisma, accountId, body.overlay_id) : null;
      const domainId =
        body.domain !== undefined ? await ownVerifiedDomainId(prisma, accountId, body.domain) : null;
      // The title and the framing check are two reads of the same destination; run them together.
      const [title, frameable] = await Promise.all([
        body.title ?? deps.titles.titleFor(body.url),
        overlayId !== null ? framing(deps, body.url) : null,
      ]);
      const link = await createLink(deps, accountId, { ...body, title, overlayId, domainId, frameable });
      return v1Success(toLinkJson(link, deps.baseUrl, await domainsForLink(prisma, accountId, link)));
    }),

    route(ROUTES.listLinks, async ({ identity: { accountId }, query }) => {
      const domainId =
        query.domain !== undefined ? await domainFilterId(prisma, accountId, query.domain) : undefined;
      const [{ links, total }, domains] = await Promise.all([
        listLinks(prisma, accountId, query, domainId),
        accountDomains(prisma, accountId),
      ]);
      return {
        success: true as const,
        data: links.map((link) => toLinkJson(link, deps.baseUrl, domains)),
        meta: {
          page: query.page,
          per_page: query.per_page,
          total,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    }),

    route(ROUTES.getLink, async ({ identity: { accountId }, params }) => {
      // One prepared statement for the link and its domain (decision 0044), not Prisma's two queries.
      const found = await linkWithDomain(prisma, accountId, params.id);
      if (!found) throw linkNotFound();
      const { link, domains } = found;
      const shared = link.analyticsSharedFields;
      return v1Success({
        ...toLinkJson(link, deps.baseUrl, domains),
        analytics_shared_fields: Array.isArray(shared) ? (shared as AnalyticsSharedField[]) : null,
      });
    }),

    route(ROUTES.updateLink, async ({ identity: { accountId }, params, body }) => {
      let extras: LinkExtras = {};
      if (body.overlay_id === null) extras = { overlayId: null };
      else if (body.overlay_id !== undefined) {
        const overlayId = await ownOverlayId(prisma, accountId, body.overlay_id);
        const current = await getLink(prisma, accountId, params.id);
        extras = { overlayId, frameable: await framing(deps, current.originalUrl) };
      }
      const link = await updateLink(deps, accountId, params.id, body, extras);
      return v1Success(toLinkJson(link, deps.baseUrl, await domainsForLink(prisma, accountId, link)));
    }),

    route(ROUTES.deleteLink, async ({ identity: { accountId }, params }) => {
      const removed = await deleteLinks(deps, accountId, [params.id]);
      if (removed.length === 0) throw linkNotFound();
      return v1Success({ deleted: true as const });
    }),
  ];
}

/** Whether the destination may be framed under the overlay; null (unknown: interstitial) without a checker. */
const framing = (deps: LinksDeps, url: string): Promise<boolean | null> =>
  deps.titles.framingAllowed?.(url) ?? Promise.resolve(null);
