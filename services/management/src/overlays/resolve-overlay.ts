// The redirect's miss path for an `overlay:<id>` record. A hit also writes the Redis record, healing
// the cache for every other redirect instance.
import type { OverlayRecord } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type OverlayRecords, toOverlayRecord } from "../projections/overlay-records.ts";

/** The overlay `id` names (a positive 32-bit integer in decimal), or null. */
export async function resolveOverlay(
  deps: { prisma: PrismaClient; overlayRecords: Pick<OverlayRecords, "put"> },
  id: string,
): Promise<OverlayRecord | null> {
  const n = /^[1-9]\d{0,9}$/.test(id) ? Number(id) : 0;
  const overlay =
    n > 0 && n <= 2_147_483_647 ? await deps.prisma.overlay.findUnique({ where: { id: n } }) : null;
  if (!overlay) return null;
  await deps.overlayRecords.put(overlay);
  return toOverlayRecord(overlay);
}
