// A page of the contact submissions an overlay received.
import type { LegacyListQuery } from "@kurz/contracts";
import type { OverlaySubmission, PrismaClient } from "@kurz/db";
import { type NumberedPage, numberedPage } from "../db/numbered-page.ts";
import { getOverlay } from "./get-overlay.ts";

/** The overlay's submissions, newest first (the overlay must be the account's). */
export async function listSubmissions(
  prisma: PrismaClient,
  accountId: string,
  overlayId: number,
  query: LegacyListQuery,
): Promise<NumberedPage<OverlaySubmission>> {
  await getOverlay(prisma, accountId, overlayId);
  const where = { overlayId, accountId };
  return numberedPage(
    query,
    () => prisma.overlaySubmission.count({ where }),
    (skip, take) => prisma.overlaySubmission.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}
