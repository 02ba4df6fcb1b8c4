// The older API's CTA overlays (SPEC 2.9, 4.2): read-only over the API; the admin CLI creates them
// (`./kurz overlays:create`) until a dashboard does.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Overlay, PrismaClient } from "@kurz/db";
import { type LegacyPage, legacyPage } from "./legacy-page.ts";

/** The account's overlays, newest first. */
export function listOverlays(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Overlay>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.overlay.count({ where }),
    (skip, take) => prisma.overlay.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
