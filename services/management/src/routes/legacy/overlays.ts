// /api/overlay: CTA overlays (SPEC 2.9, 4.2). Read-only over the API; the admin CLI creates them
// (`./kurz overlays:create`) until a dashboard does.
import { toLegacyDateTime } from "@kurz/contracts";
import type { Overlay, PrismaClient } from "@kurz/db";
import { requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import { legacyListBody, legacyPage } from "./list-page.ts";

export const toLegacyOverlay = (overlay: Overlay) => ({
  id: overlay.id,
  type: overlay.type,
  name: overlay.name,
  date: toLegacyDateTime(overlay.createdAt),
});

export function legacyOverlaysRouter(deps: { prisma: PrismaClient }): Router {
  const router = Router();
  const { prisma } = deps;

  router.get("/overlay", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const where = { accountId };
    const page = await legacyPage(
      req.query,
      () => prisma.overlay.count({ where }),
      (skip, take) => prisma.overlay.findMany({ where, orderBy: { id: "desc" }, skip, take }),
    );
    res.json(legacyListBody("cta", { ...page, items: page.items.map(toLegacyOverlay) }));
  });

  return router;
}
