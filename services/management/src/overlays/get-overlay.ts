// Reading one overlay.
import type { Overlay, PrismaClient } from "@kurz/db";
import { overlayNotFound } from "./overlays.ts";

export async function getOverlay(prisma: PrismaClient, accountId: string, id: number): Promise<Overlay> {
  const overlay = await prisma.overlay.findFirst({ where: { id, accountId } });
  if (!overlay) throw overlayNotFound();
  return overlay;
}
