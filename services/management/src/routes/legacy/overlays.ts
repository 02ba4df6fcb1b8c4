// /api/overlay: CTA overlays (SPEC 2.9, 4.2). Record in contracts' routes-legacy.ts, the query in
// legacy/overlays-service.ts.
import { ROUTES, toLegacyDateTime } from "@kurz/contracts";
import type { Overlay, PrismaClient } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { listOverlays } from "../../legacy/overlays-service.ts";
import { legacyListBody } from "./legacy-envelope.ts";

export const toLegacyOverlay = (overlay: Overlay) => ({
  id: overlay.id,
  type: overlay.type,
  name: overlay.name,
  date: toLegacyDateTime(overlay.createdAt),
});

export function legacyOverlaysRoutes({ prisma }: { prisma: PrismaClient }): MountedRoute[] {
  return [
    route(ROUTES.legacyListOverlays, async ({ identity, query }) => {
      const page = await listOverlays(prisma, identity.accountId, query);
      return legacyListBody("cta", { ...page, items: page.items.map(toLegacyOverlay) });
    }),
  ];
}
