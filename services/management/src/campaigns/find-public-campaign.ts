// The public list page's content (GET /c/:publicId).
import type { Link, PrismaClient } from "@kurz/db";

/**
 * A public campaign's name and the links a visitor could follow, in assignment order; null for an
 * unknown or private campaign, so the page cannot tell the two apart. The rotator's rule: inactive
 * and expired links would end on an error page, and a password-protected one is not listed at all,
 * since its title (or even its existence) may be what the password protects (docs/legacy-api.md).
 *
 * `brandedHost` is the Host's name when the page is asked for on a host other than the origin's own:
 * then the campaign is found only when that host is one of its account's verified branded domains, so
 * no account's page can be shown under another account's name.
 */
export async function findPublicCampaign(
  prisma: PrismaClient,
  publicId: string,
  brandedHost: string | null,
): Promise<{ accountId: string; name: string; links: Link[] } | null> {
  const campaign = await prisma.campaign.findUnique({
    where: { publicId },
    include: { links: { orderBy: { position: "asc" }, include: { link: true } } },
  });
  if (!campaign?.public) return null;
  if (brandedHost !== null) {
    const domain = await prisma.domain.findFirst({
      where: { host: brandedHost, accountId: campaign.accountId, status: "verified" },
      select: { id: true },
    });
    if (!domain) return null;
  }
  const now = Date.now();
  const links = campaign.links
    .map(({ link }) => link)
    .filter(
      (link) =>
        link.isActive &&
        link.passwordHash === null &&
        (link.expiresAt === null || link.expiresAt.getTime() > now),
    );
  return { accountId: campaign.accountId, name: campaign.name, links };
}
