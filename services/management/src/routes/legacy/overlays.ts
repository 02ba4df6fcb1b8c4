// /api/overlay: CTA overlays (docs/legacy-api.md "CTA overlays"). Records in contracts'
// routes-legacy.ts and routes-overlays.ts, use cases in overlays/overlays.ts.
import { CSV_CONTENT_TYPE, ROUTES, toLegacyDateTime } from "@kurz/contracts";
import type { Overlay, OverlaySubmission } from "@kurz/db";
import { type MountedRoute, route } from "@kurz/service-kit";
import { allSubmissions } from "../../overlays/all-submissions.ts";
import { createOverlay } from "../../overlays/create-overlay.ts";
import { deleteOverlay } from "../../overlays/delete-overlay.ts";
import { getOverlay } from "../../overlays/get-overlay.ts";
import { listOverlays } from "../../overlays/list-overlays.ts";
import { listSubmissions } from "../../overlays/list-submissions.ts";
import { overlayContent, submissionFields } from "../../overlays/overlay-fields.ts";
import type { OverlayWriterDeps } from "../../overlays/overlays.ts";
import { csvDisposition, submissionsCsv } from "../../overlays/submissions-csv.ts";
import { updateOverlay } from "../../overlays/update-overlay.ts";
import { legacyListBody, legacyMessage } from "./legacy-envelope.ts";

export const toLegacyOverlay = (overlay: Overlay) => ({
  id: overlay.id,
  type: overlay.type,
  name: overlay.name,
  ...overlayContent(overlay),
  date: toLegacyDateTime(overlay.createdAt),
});

const toLegacySubmission = (s: OverlaySubmission) => ({
  ...submissionFields(s),
  date: toLegacyDateTime(s.createdAt),
});

export function legacyOverlaysRoutes(deps: OverlayWriterDeps): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.legacyListOverlays, async ({ identity, query }) => {
      const page = await listOverlays(prisma, identity.accountId, query);
      return legacyListBody("cta", { ...page, items: page.items.map(toLegacyOverlay) });
    }),
    route(ROUTES.legacyAddOverlay, async ({ identity, body }) => {
      const overlay = await createOverlay(deps, identity.accountId, body);
      return { error: 0 as const, id: overlay.id, data: toLegacyOverlay(overlay) };
    }),
    route(ROUTES.legacyGetOverlay, async ({ identity, params }) => ({
      error: 0 as const,
      data: toLegacyOverlay(await getOverlay(prisma, identity.accountId, params.id)),
    })),
    route(ROUTES.legacyUpdateOverlay, async ({ identity, params, body }) => ({
      error: 0 as const,
      data: toLegacyOverlay(await updateOverlay(deps, identity.accountId, params.id, body)),
    })),
    route(ROUTES.legacyDeleteOverlay, async ({ identity, params }) => {
      await deleteOverlay(deps, identity.accountId, params.id);
      return legacyMessage("Overlay has been deleted successfully.");
    }),
    route(ROUTES.legacyListOverlaySubmissions, async ({ identity, params, query }) => {
      const page = await listSubmissions(prisma, identity.accountId, params.id, query);
      return legacyListBody("submissions", { ...page, items: page.items.map(toLegacySubmission) });
    }),
    route(ROUTES.legacyExportOverlaySubmissions, async ({ identity, params }) => {
      const rows = await allSubmissions(prisma, identity.accountId, params.id);
      return {
        contentType: CSV_CONTENT_TYPE,
        body: submissionsCsv(rows),
        headers: { "Content-Disposition": csvDisposition(params.id) },
      };
    }),
  ];
}
