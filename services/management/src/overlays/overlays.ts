// What the CTA overlay use cases share (docs/legacy-api.md "CTA overlays", decision 0026), for both
// API generations. Every lookup is scoped to the account, so another account's overlay is a 404 exactly
// like a missing one.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import type { RedirectRecords } from "../projections/link-records.ts";
import type { OverlayRecords } from "../projections/overlay-records.ts";

export const overlayNotFound = () => notFound("Overlay not found");

export interface OverlayWriterDeps {
  prisma: PrismaClient;
  overlayRecords: OverlayRecords;
  records: Pick<RedirectRecords, "put">;
}
