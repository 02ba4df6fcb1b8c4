// The account's links as CSV or JSON (docs/import-export.md), streamed: keyset pages of the account's
// index (created_at, id) so memory stays flat whatever the account's size, and every column of a link
// but its password hash. The CSV imports back (`original_url` and `short_code` are import columns).
import { Readable } from "node:stream";
import { type ExportLinksFormat, LINK_EXPORT_COLUMNS } from "@kurz/contracts";
import type { Link, PrismaClient } from "@kurz/db";
import { csvLine } from "@kurz/service-kit";
import { toExportedLink } from "../links/link-json.ts";
import { LINK_COLUMNS } from "../links/list-links.ts";
import { accountDomains } from "../links/short-url.ts";

const PAGE = 1_000;

/** The account's links, oldest first, one page in memory at a time. */
export async function* accountLinks(prisma: PrismaClient, accountId: string): AsyncGenerator<Link> {
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const page: Link[] = after
      ? await prisma.$queryRaw<Link[]>`SELECT ${LINK_COLUMNS} FROM links
          WHERE account_id = ${accountId}::uuid AND (created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)
          ORDER BY created_at, id LIMIT ${PAGE}`
      : await prisma.$queryRaw<Link[]>`SELECT ${LINK_COLUMNS} FROM links
          WHERE account_id = ${accountId}::uuid ORDER BY created_at, id LIMIT ${PAGE}`;
    yield* page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

export function exportLinks(
  prisma: PrismaClient,
  accountId: string,
  baseUrl: string,
  format: ExportLinksFormat,
): Readable {
  async function* csv() {
    // A branded link's short URL is on its domain; an account has a handful of domains, read once.
    const origins = await accountDomains(prisma, accountId);
    yield csvLine(LINK_EXPORT_COLUMNS);
    for await (const link of accountLinks(prisma, accountId)) {
      const row = toExportedLink(link, baseUrl, origins);
      yield csvLine(LINK_EXPORT_COLUMNS.map((c) => row[c]));
    }
  }
  async function* json() {
    // A branded link's short URL is on its domain; an account has a handful of domains, read once.
    const origins = await accountDomains(prisma, accountId);
    yield "[";
    let first = true;
    for await (const link of accountLinks(prisma, accountId)) {
      yield `${first ? "\n" : ",\n"}${JSON.stringify(toExportedLink(link, baseUrl, origins))}`;
      first = false;
    }
    yield "\n]\n";
  }
  return Readable.from(format === "json" ? json() : csv());
}
