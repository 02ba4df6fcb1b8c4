// GET /links: one account's links, newest first, optionally filtered. Raw SQL so that the search is an
// ILIKE with explicit escaping, matching the trigram indexes the migration created for it. The
// unfiltered total is the account's stored link count (decision 0037); a filtered one is counted.
import type { ListLinksQuery } from "@kurz/contracts";
import { type Link, Prisma, type PrismaClient } from "@kurz/db";
import { storedLinkCount } from "./link-count.ts";

/** Every links column under the Link model's field names, for raw queries that return Link rows. */
export const LINK_COLUMNS = Prisma.sql`id, account_id AS "accountId", short_code AS "shortCode",
  original_url AS "originalUrl", title, password_hash AS "passwordHash", is_active AS "isActive",
  expires_at AS "expiresAt", clicks_count AS "clicksCount", analytics_public AS "analyticsPublic",
  analytics_shared_fields AS "analyticsSharedFields", created_at AS "createdAt", updated_at AS "updatedAt",
  overlay_id AS "overlayId", domain_id AS "domainId", frameable, frame_checked_at AS "frameCheckedAt",
  version, rules, split, forward_query AS "forwardQuery", max_clicks AS "maxClicks",
  expired_url AS "expiredUrl", og_title AS "ogTitle", og_description AS "ogDescription",
  og_image_id AS "ogImageId", ios_url AS "iosUrl", android_url AS "androidUrl",
  broken_url AS "brokenUrl", broken_since AS "brokenSince"`;

/** `%`, `_` and the escape character itself match literally inside the search term. */
export const likeContains = (term: string) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * `domainId`: the `domain` filter already resolved to one of the account's domains (null: the filter
 * names none of them, so nothing matches).
 */
export async function listLinks(
  prisma: PrismaClient,
  accountId: string,
  query: ListLinksQuery,
  domainId?: number | null,
): Promise<{ links: Link[]; total: number }> {
  const conditions = [Prisma.sql`account_id = ${accountId}::uuid`];
  if (domainId !== undefined) conditions.push(Prisma.sql`domain_id = ${domainId ?? -1}::int`);
  if (query.channel !== undefined) {
    // The channel must be the account's too: another account's channel id matches nothing.
    conditions.push(Prisma.sql`id IN (SELECT cl.link_id FROM channel_links cl JOIN channels c ON c.id = cl.channel_id
      WHERE cl.channel_id = ${query.channel}::int AND c.account_id = ${accountId}::uuid)`);
  }
  if (query.health === "broken") {
    conditions.push(Prisma.sql`broken_since IS NOT NULL`);
  } else if (query.health !== undefined) {
    conditions.push(Prisma.sql`id IN (SELECT h.link_id FROM link_health h
      WHERE h.account_id = ${accountId}::uuid AND h.state = ${query.health})`);
  }
  if (query.is_active !== undefined) conditions.push(Prisma.sql`is_active = ${query.is_active}`);
  if (query.search !== undefined) {
    const pattern = likeContains(query.search);
    conditions.push(
      // Backslash is LIKE's default escape character, which likeContains relies on.
      Prisma.sql`(original_url ILIKE ${pattern} OR short_code ILIKE ${pattern} OR title ILIKE ${pattern})`,
    );
  }
  const where = Prisma.join(conditions, " AND ");
  const offset = (query.page - 1) * query.per_page;
  // A page past 2^53 rows is past any account's end; it is answered empty without asking Postgres.
  const page = Number.isSafeInteger(offset)
    ? prisma.$queryRaw<Link[]>`SELECT ${LINK_COLUMNS} FROM links WHERE ${where}
        ORDER BY created_at DESC, id DESC LIMIT ${query.per_page}::int OFFSET ${BigInt(offset)}::bigint`
    : Promise.resolve([] as Link[]);
  const filtered = conditions.length > 1;
  const [links, total] = await Promise.all([
    page,
    filtered
      ? prisma.$queryRaw<{ total: bigint }[]>`SELECT count(*) AS total FROM links WHERE ${where}`.then(
          ([counted]) => Number(counted?.total ?? 0),
        )
      : storedLinkCount(prisma, accountId),
  ]);
  return { links, total };
}
