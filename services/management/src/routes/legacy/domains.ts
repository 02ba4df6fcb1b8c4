// /api/domains, /api/domain/*: branded domains with proof of control
// (docs/legacy-api.md "Branded domains"). Records in contracts' routes-legacy.ts, use cases in
// domains/domains.ts, the DNS check in domain-verification.ts.
import { type DomainStatus, domainVerificationRecord, ROUTES, toLegacyDateTime } from "@kurz/contracts";
import type { Domain } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { addDomain } from "../../domains/add-domain.ts";
import { deleteDomain } from "../../domains/delete-domain.ts";
import { createTxtLookup, type TxtLookup, verifyDomain } from "../../domains/domain-verification.ts";
import type { DomainWriterDeps } from "../../domains/domains.ts";
import { linkCountsByDomain } from "../../domains/link-counts-by-domain.ts";
import { listDomains } from "../../domains/list-domains.ts";
import { updateDomain } from "../../domains/update-domain.ts";
import type { LinkWriterDeps } from "../../links/link-writer.ts";
import { legacyListBody, legacyMessage, legacyOk } from "./legacy-envelope.ts";

export interface LegacyDomainsDeps extends DomainWriterDeps, Omit<LinkWriterDeps, "domainAndRotatorRecords"> {
  /** TXT lookups for verification; the system's resolvers when absent. */
  domainTxtLookup?: TxtLookup;
}

const verificationFields = (domain: Domain) => ({
  status: domain.status as DomainStatus,
  verified_at: domain.verifiedAt ? toLegacyDateTime(domain.verifiedAt) : null,
  last_checked_at: domain.lastCheckedAt ? toLegacyDateTime(domain.lastCheckedAt) : null,
  verification: domainVerificationRecord(domain.host, domain.verificationToken),
});

/** The documented fields unchanged, then where verification stands and how many links it carries. */
export const toLegacyDomain = (domain: Domain, links: number) => ({
  id: domain.id,
  domain: domain.origin,
  redirectroot: domain.redirectRoot,
  redirect404: domain.redirect404,
  ...verificationFields(domain),
  links,
});

const VERIFY_MESSAGES: Record<DomainStatus, string> = {
  verified: "Domain has been verified.",
  failed: "The verification record was not found; the domain does not serve links.",
  pending: "Domain is pending verification.",
};

export function legacyDomainsRoutes(deps: LegacyDomainsDeps): MountedRoute[] {
  const { prisma, domainAndRotatorRecords } = deps;
  const txtLookup = deps.domainTxtLookup ?? createTxtLookup({ servers: [] });
  return [
    route(ROUTES.legacyListDomains, async ({ identity, query }) => {
      const page = await listDomains(prisma, identity.accountId, query);
      const counts = await linkCountsByDomain(
        prisma,
        identity.accountId,
        page.items.map((d) => d.id),
      );
      const items = page.items.map((d) => toLegacyDomain(d, counts.get(d.id) ?? 0));
      return legacyListBody("domains", { ...page, items });
    }),
    route(ROUTES.legacyAddDomain, async ({ identity, body }) => {
      const domain = await addDomain(deps, identity.accountId, body);
      return legacyOk({ id: domain.id, ...verificationFields(domain) });
    }),
    route(ROUTES.legacyVerifyDomain, async ({ identity, params }) => {
      const domain = await verifyDomain(
        { prisma, domainAndRotatorRecords, txtLookup },
        identity.accountId,
        params.id,
      );
      const fields = verificationFields(domain);
      return legacyOk({ id: domain.id, message: VERIFY_MESSAGES[fields.status], ...fields });
    }),
    route(ROUTES.legacyUpdateDomain, async ({ identity, params, body }) => {
      await updateDomain(deps, identity.accountId, params.id, body);
      return legacyMessage("Domain has been updated successfully.");
    }),
    route(ROUTES.legacyDeleteDomain, async ({ identity, params }) => {
      const { linksDeleted } = await deleteDomain(deps, identity.accountId, params.id);
      return legacyOk({
        message:
          linksDeleted === 0
            ? "Domain has been deleted successfully."
            : `Domain and its ${linksDeleted === 1 ? "link have" : `${linksDeleted} links have`} been deleted successfully.`,
        links_deleted: linksDeleted,
      });
    }),
  ];
}
