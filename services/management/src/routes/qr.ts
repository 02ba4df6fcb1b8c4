// GET /api/v1/qr/:short_code: the QR image of one of the caller's links (SPEC 4.1), encoding its short
// URL (on its branded domain when it has one). Errors are JSON.
import { QR_CACHE_CONTROL, ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, notFound, route } from "@kurz/service-kit";
import type { QrRenderer } from "../links/qr-renderer.ts";
import { accountDomains, shortUrlOf } from "../links/short-url.ts";

export function qrRoutes(deps: { prisma: PrismaClient; qr: QrRenderer; baseUrl: string }): MountedRoute[] {
  return [
    route(ROUTES.getQr, async ({ identity: { accountId }, params: { short_code }, query }) => {
      // Another account's code behaves exactly like an unknown one.
      const link = await deps.prisma.link.findFirst({
        where: { shortCode: short_code, accountId },
        select: { shortCode: true, domainId: true },
      });
      if (!link) throw notFound("Link not found.");
      // A link on a branded domain is served only there, so that is the address the code must carry.
      const domains = link.domainId !== null ? await accountDomains(deps.prisma, accountId) : new Map();
      const image = await deps.qr.render(shortUrlOf(link, deps.baseUrl, domains), query);
      return {
        contentType: image.contentType,
        body: image.body,
        headers: { "Cache-Control": QR_CACHE_CONTROL },
      };
    }),
  ];
}
