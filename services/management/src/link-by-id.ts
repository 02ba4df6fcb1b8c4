// `GET /api/v1/links/:id`'s read: the link and its branded domain in one prepared statement on the
// pool under Prisma (decision 0035). The Prisma path took two queries per request (findFirst, then
// every domain of the account for the short URL) and Prisma's query interpreter on each; this is the
// hottest keyed read of the API (issue 15). The row comes back in Prisma's `Link` shape, so the JSON is
// still made by toLinkJson alone; `link-by-id.test.ts` holds it equal to `prisma.link.findFirst`.
import { type Link, type PrismaClient, poolOf } from "@kurz/db";
import { type DomainOrigins, domainInfo, NO_DOMAINS } from "./short-url.ts";

// Every column of `links`, named as Prisma names them; the domain only if it is the account's own
// (accountDomains' rule: a missing entry shows the main host).
const LINK_BY_ID = `SELECT l.id, l.account_id AS "accountId", l.short_code AS "shortCode",
  l.original_url AS "originalUrl", l.title, l.password_hash AS "passwordHash", l.is_active AS "isActive",
  l.expires_at AS "expiresAt", l.clicks_count AS "clicksCount", l.analytics_public AS "analyticsPublic",
  l.analytics_shared_fields AS "analyticsSharedFields", l.created_at AS "createdAt",
  l.updated_at AS "updatedAt", l.overlay_id AS "overlayId", l.domain_id AS "domainId", l.frameable,
  l.frame_checked_at AS "frameCheckedAt", d.host AS "domainHost", d.origin AS "domainOrigin"
FROM links l LEFT JOIN domains d ON d.id = l.domain_id AND d.account_id = l.account_id
WHERE l.id = $1::uuid AND l.account_id = $2::uuid`;

type Row = Omit<Link, "clicksCount"> & {
  /** int8 arrives as text from node-postgres. */
  clicksCount: string;
  domainHost: string | null;
  domainOrigin: string | null;
};

/** The account's link `id` with the domains its short URL needs, or null (unknown or another account's). */
export async function linkWithDomain(
  prisma: PrismaClient,
  accountId: string,
  id: string,
): Promise<{ link: Link; domains: DomainOrigins } | null> {
  const { rows } = await poolOf(prisma).query<Row>({
    name: "kurz_link_by_id",
    text: LINK_BY_ID,
    values: [id, accountId],
  });
  const row = rows[0];
  if (!row) return null;
  const { domainHost, domainOrigin, clicksCount, ...rest } = row;
  const link: Link = { ...rest, clicksCount: BigInt(clicksCount) };
  const domains =
    link.domainId !== null && domainHost !== null && domainOrigin !== null
      ? new Map([[link.domainId, domainInfo({ host: domainHost, origin: domainOrigin })]])
      : NO_DOMAINS;
  return { link, domains };
}
