// `GET /api/v1/links/:id`'s read: the link and its branded domain in one prepared statement on the
// pool under Prisma (decision 0044), not Prisma's two queries (findFirst, then every domain of the
// account for the short URL) through its query interpreter: this is the hottest keyed read of the API. The row comes back in Prisma's `Link` shape less the redirect
// record's version, which the API never shows, so the JSON is still made by toLinkJson alone;
// `link-by-id.test.ts` holds it equal to `prisma.link.findFirst`'s row.
// The reads that reach the process together are one statement (decision 0044, as for creates): each
// asks for its id *and* its account, and a row answers only the read that named both.
import type { Link, PrismaClient } from "@kurz/db";
import { batchedOnPool, type Pool } from "../db/call-batcher.ts";
import { type DomainOrigins, domainInfo, NO_DOMAINS } from "./short-url.ts";

// Every column of `links`, named as Prisma names them; the domain only if it is the account's own
// (accountDomains' rule: a missing entry shows the main host).
// `LIMIT $3` (the number of reads, so it drops none) is for the planner. Without it a generic plan
// estimates ten rows from the arrays, costs ten index probes, and loses to a custom plan of the actual
// batch every time, so Postgres planned the statement again at each call: 0.19–0.26 ms of its CPU per
// one-read call, against 0.04 ms with the limit, whose generic plan (estimated at one row) is chosen
// after the first calls and kept (docs/benchmarks/2026-11.md, 2026-11-28 16:21). The plan is the same
// either way: a nested loop of primary-key probes. link-by-id.test.ts holds it to one plan
// (pg_prepared_statements).
const LINKS_BY_ID = `SELECT q.item::int AS item, l.id, l.account_id AS "accountId",
  l.short_code AS "shortCode", l.original_url AS "originalUrl", l.title, l.password_hash AS "passwordHash",
  l.is_active AS "isActive", l.expires_at AS "expiresAt", l.clicks_count AS "clicksCount",
  l.analytics_public AS "analyticsPublic", l.analytics_shared_fields AS "analyticsSharedFields",
  l.created_at AS "createdAt", l.updated_at AS "updatedAt", l.overlay_id AS "overlayId",
  l.domain_id AS "domainId", l.frameable, l.frame_checked_at AS "frameCheckedAt", l.rules, l.split,
  l.forward_query AS "forwardQuery", l.max_clicks AS "maxClicks", l.expired_url AS "expiredUrl",
  l.og_title AS "ogTitle", l.og_description AS "ogDescription", l.og_image_id AS "ogImageId",
  l.ios_url AS "iosUrl", l.android_url AS "androidUrl", l.broken_url AS "brokenUrl",
  l.broken_since AS "brokenSince", d.host AS "domainHost",
  d.origin AS "domainOrigin"
FROM (SELECT * FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS u(id, account_id, item) LIMIT $3) AS q
JOIN links l ON l.id = q.id AND l.account_id = q.account_id
LEFT JOIN domains d ON d.id = l.domain_id AND d.account_id = l.account_id`;

/** A link as the API shows it: every column but the redirect record's version (decision 0052). */
type ShownLink = Omit<Link, "version">;

type Row = Omit<ShownLink, "clicksCount"> & {
  /** The read's place in the call, from 1. */
  item: number;
  /** int8 arrives as text from node-postgres. */
  clicksCount: string;
  domainHost: string | null;
  domainOrigin: string | null;
};

type Found = { link: ShownLink; domains: DomainOrigins };
type Read = { accountId: string; id: string };

const readBatched = batchedOnPool<Read, Found | null>(readLinks);

/** The account's link `id` with the domains its short URL needs, or null (unknown or another account's). */
export function linkWithDomain(prisma: PrismaClient, accountId: string, id: string): Promise<Found | null> {
  return readBatched(prisma, { accountId, id });
}

async function readLinks(pool: Pool, reads: readonly Read[]): Promise<(Found | null)[]> {
  const { rows } = await pool.query<Row>({
    name: "kurz_links_by_id",
    text: LINKS_BY_ID,
    values: [reads.map((r) => r.id), reads.map((r) => r.accountId), reads.length],
  });
  const found: (Found | null)[] = reads.map(() => null);
  for (const row of rows) found[row.item - 1] = fromRow(row);
  return found;
}

function fromRow({ item: _, domainHost, domainOrigin, clicksCount, ...rest }: Row): Found {
  const link: ShownLink = { ...rest, clicksCount: BigInt(clicksCount) };
  const domains =
    link.domainId !== null && domainHost !== null && domainOrigin !== null
      ? new Map([[link.domainId, domainInfo({ host: domainHost, origin: domainOrigin })]])
      : NO_DOMAINS;
  return { link, domains };
}
