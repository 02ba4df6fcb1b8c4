// The QR image of one of the account's links (GET /api/v1/qr/:short_code), encoding its short URL: on
// its branded domain when it has one, since a link on a branded domain is served only there.
import type { QrQuery } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { QrImage, QrRenderer } from "./qr-renderer.ts";
import { accountDomains, NO_DOMAINS, shortUrlOf } from "./short-url.ts";

/** The image, or null when the account has no link with this code (another account's is the same). */
export async function qrImage(
  deps: { prisma: PrismaClient; qr: QrRenderer; baseUrl: string },
  accountId: string,
  shortCode: string,
  query: QrQuery,
): Promise<QrImage | null> {
  const link = await deps.prisma.link.findFirst({
    where: { shortCode, accountId },
    select: { shortCode: true, domainId: true },
  });
  if (!link) return null;
  const domains = link.domainId !== null ? await accountDomains(deps.prisma, accountId) : NO_DOMAINS;
  return deps.qr.render(shortUrlOf(link, deps.baseUrl, domains), query);
}
