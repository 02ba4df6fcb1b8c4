// GET /api/v1/qr/:short_code: the QR image of one of the caller's links (SPEC 4.1). Errors are JSON.
import { QR_CACHE_CONTROL, QrParams, QrQuery } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { methodNotAllowed, notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import type { QrRenderer } from "../qr-renderer.ts";

export function qrRouter(deps: { prisma: PrismaClient; qr: QrRenderer; baseUrl: string }): Router {
  const router = Router();

  router
    .route("/:short_code")
    .get(async (req, res) => {
      const { accountId } = requireIdentity(res);
      const { short_code } = QrParams.parse(req.params);
      const params = QrQuery.parse(req.query);
      // Another account's code behaves exactly like an unknown one.
      const link = await deps.prisma.link.findFirst({
        where: { shortCode: short_code, accountId },
        select: { shortCode: true },
      });
      if (!link) throw notFound("Link not found");
      const image = await deps.qr.render(`${deps.baseUrl}/${link.shortCode}`, params);
      res.set({ "Content-Type": image.contentType, "Cache-Control": QR_CACHE_CONTROL });
      res.send(image.body);
    })
    .all(methodNotAllowed(["GET"]));

  return router;
}
