// GET /api/v1/qr/:short_code: the QR image of one of the caller's links, encoding its short
// URL (links/qr-image.ts). Errors are JSON.
import { QR_CACHE_CONTROL, ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type MountedRoute, notFound, route } from "@kurz/service-kit";
import { qrImage } from "../links/qr-image.ts";
import type { QrRenderer } from "../links/qr-renderer.ts";

export function qrRoutes(deps: { prisma: PrismaClient; qr: QrRenderer; baseUrl: string }): MountedRoute[] {
  return [
    route(ROUTES.getQr, async ({ identity: { accountId }, params: { short_code }, query }) => {
      const image = await qrImage(deps, accountId, short_code, query);
      if (!image) throw notFound("Link not found.");
      return {
        contentType: image.contentType,
        body: image.body,
        headers: { "Cache-Control": QR_CACHE_CONTROL },
      };
    }),
  ];
}
