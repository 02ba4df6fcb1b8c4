// Listing the account's overlays.
import type { LegacyListQuery } from "@kurz/contracts";
import type { Overlay, PrismaClient } from "@kurz/db";
import { type NumberedPage, numberedPage } from "../db/numbered-page.ts";

/** The account's overlays, newest first. */
export function listOverlays(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<NumberedPage<Overlay>> {
  const where = { accountId };
  return numberedPage(
    query,
    () => prisma.overlay.count({ where }),
    (skip, take) => prisma.overlay.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
