// /api/v1/links and /api/v1/links/:id: the link resource. Bulk lives in bulk.ts. The records
// in contracts (ROUTES) parse the input and check the answers; these handlers only call the use cases.
import { ROUTES } from "@kurz/contracts";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { type CreateLinksDeps, createLinks } from "../links/create-links.ts";
import { deleteLinks } from "../links/delete-links.ts";
import { linkWithDomain } from "../links/get-link.ts";
import { sharedFieldsOf, toLinkJson } from "../links/link-json.ts";
import { domainFilterId } from "../links/link-targets.ts";
import { linkNotFound } from "../links/link-writer.ts";
import { listLinks } from "../links/list-links.ts";
import { accountDomains, domainsForLink } from "../links/short-url.ts";
import { updateLink } from "../links/update-link.ts";

export interface LinksDeps extends CreateLinksDeps {
  baseUrl: string;
}

export function linksRoutes(deps: LinksDeps): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.createLink, async ({ identity: { accountId, keyId }, body }) => {
      // A past expires_at is accepted (the link is created expired and answers 410), the same rule
      // as PATCH: SnipURL's documented examples carry dates that have since passed (docs/api.md).
      const [outcome] = await createLinks(deps, { accountId, keyId }, [body]);
      if (!outcome || "error" in outcome) throw outcome?.error;
      const { link } = outcome;
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
      return v1Success({
        ...toLinkJson(link, deps.baseUrl, domains),
        analytics_shared_fields: sharedFieldsOf(link),
      });
    }),

    route(ROUTES.updateLink, async ({ identity: { accountId }, params, body }) => {
      const link = await updateLink(deps, accountId, params.id, body);
      return v1Success(toLinkJson(link, deps.baseUrl, await domainsForLink(prisma, accountId, link)));
    }),

    route(ROUTES.deleteLink, async ({ identity: { accountId }, params }) => {
      const removed = await deleteLinks(deps, accountId, [params.id]);
      if (removed.length === 0) throw linkNotFound();
      return v1Success({ deleted: true as const });
    }),
  ];
}
