// Every submission of an overlay, for the CSV export.
import type { OverlaySubmission, PrismaClient } from "@kurz/db";
import { getOverlay } from "./get-overlay.ts";

/** Every submission of the overlay, oldest first, for the CSV export (bounded: at most 100,000 rows). */
export async function allSubmissions(
  prisma: PrismaClient,
  accountId: string,
  overlayId: number,
): Promise<OverlaySubmission[]> {
  await getOverlay(prisma, accountId, overlayId);
  return prisma.overlaySubmission.findMany({
    where: { overlayId, accountId },
    orderBy: { id: "asc" },
    take: 100_000,
  });
}
