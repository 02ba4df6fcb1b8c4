// The one place a link's short URL is made: `<origin>/<code>`, where the origin is the
// link's branded domain when it has one and the service's own public origin otherwise. Every response,
// page, QR code and file that shows a short URL calls shortUrlOf, so a link created on a branded domain
// never shows an address on the main host, where it is not served.
import type { PrismaClient } from "@kurz/db";

/** A branded domain as a link's JSON needs it: its host and the origin its short URLs use. */
export interface LinkDomainInfo {
  host: string;
  origin: string;
}

/** The account's domains by id; accountDomains loads it, once per request. */
export type DomainOrigins = ReadonlyMap<number, LinkDomainInfo>;

/** No branded domains: for callers whose links cannot have one (the map is still required, on purpose). */
export const NO_DOMAINS: DomainOrigins = new Map();

/**
 * The short URL of `link`. `domains` must hold the link's domain when it has one: a domain deleted with
 * its links (docs/dashboard-manage.md) leaves no link behind, so a missing entry is a caller's bug,
 * shown as the main host rather than a thrown error in the middle of a list.
 */
export function shortUrlOf(
  link: { shortCode: string; domainId: number | null },
  baseUrl: string,
  domains: DomainOrigins,
): string {
  const domain = link.domainId != null ? domains.get(link.domainId) : undefined;
  return `${domain?.origin ?? baseUrl}/${link.shortCode}`;
}

/** The account's domains (few per account) for its links' short URLs: id → host and origin. */
export async function accountDomains(
  prisma: Pick<PrismaClient, "domain">,
  accountId: string,
): Promise<Map<number, LinkDomainInfo>> {
  const rows = await prisma.domain.findMany({
    where: { accountId },
    select: { id: true, host: true, origin: true },
  });
  return new Map(rows.map((d) => [d.id, domainInfo(d)]));
}

/**
 * The domains one link's short URL needs: none to read for a link on the main host (most links; one
 * query less per create and update).
 */
export function domainsForLink(
  prisma: Pick<PrismaClient, "domain">,
  accountId: string,
  link: { domainId: number | null },
): Promise<DomainOrigins> {
  return link.domainId === null ? Promise.resolve(NO_DOMAINS) : accountDomains(prisma, accountId);
}

/** A domain row as short URLs use it: the origin without a trailing slash. */
export const domainInfo = (d: { host: string; origin: string }): LinkDomainInfo => ({
  host: d.host,
  origin: d.origin.replace(/\/+$/, ""),
});
