// /api/v1/overlays: CTA overlays and their contact submissions in v1's envelope, the same
// use cases and store as the older API's /api/overlay (overlays/overlays.ts).
import { CSV_CONTENT_TYPE, ROUTES } from "@kurz/contracts";
import type { Overlay, OverlaySubmission } from "@kurz/db";
import { type MountedRoute, route, v1Success } from "@kurz/service-kit";
import { allSubmissions } from "../overlays/all-submissions.ts";
import { createOverlay } from "../overlays/create-overlay.ts";
import { deleteOverlay } from "../overlays/delete-overlay.ts";
import { getOverlay } from "../overlays/get-overlay.ts";
import { listOverlays } from "../overlays/list-overlays.ts";
import { listSubmissions } from "../overlays/list-submissions.ts";
import { overlayContent, submissionFields } from "../overlays/overlay-fields.ts";
import type { OverlayWriterDeps } from "../overlays/overlays.ts";
import { csvDisposition, submissionsCsv } from "../overlays/submissions-csv.ts";
import { updateOverlay } from "../overlays/update-overlay.ts";

const toOverlayJson = (o: Overlay) => ({
  id: o.id,
  type: o.type,
  name: o.name,
  ...overlayContent(o),
  created_at: o.createdAt.toISOString(),
  updated_at: o.updatedAt.toISOString(),
});

const toSubmissionJson = (s: OverlaySubmission) => ({
  ...submissionFields(s),
  created_at: s.createdAt.toISOString(),
});

const meta = (page: number, per_page: number, total: number) => ({
  page,
  per_page,
  total,
  total_pages: Math.ceil(total / per_page),
});

export function overlaysRoutes(deps: OverlayWriterDeps): MountedRoute[] {
  const { prisma } = deps;
  return [
    route(ROUTES.listOverlays, async ({ identity, query }) => {
      const page = await listOverlays(prisma, identity.accountId, {
        limit: query.per_page,
        page: query.page,
      });
      return {
        success: true as const,
        data: page.items.map(toOverlayJson),
        meta: meta(query.page, query.per_page, page.result),
      };
    }),
    route(ROUTES.createOverlay, async ({ identity, body }) =>
      v1Success(toOverlayJson(await createOverlay(deps, identity.accountId, body))),
    ),
    route(ROUTES.getOverlay, async ({ identity, params }) =>
      v1Success(toOverlayJson(await getOverlay(prisma, identity.accountId, params.id))),
    ),
    route(ROUTES.updateOverlay, async ({ identity, params, body }) =>
      v1Success(toOverlayJson(await updateOverlay(deps, identity.accountId, params.id, body))),
    ),
    route(ROUTES.deleteOverlay, async ({ identity, params }) => {
      await deleteOverlay(deps, identity.accountId, params.id);
      return v1Success({ deleted: true as const });
    }),
    route(ROUTES.listOverlaySubmissions, async ({ identity, params, query }) => {
      const page = await listSubmissions(prisma, identity.accountId, params.id, {
        limit: query.per_page,
        page: query.page,
      });
      return {
        success: true as const,
        data: page.items.map(toSubmissionJson),
        meta: meta(query.page, query.per_page, page.result),
      };
    }),
    route(ROUTES.exportOverlaySubmissions, async ({ identity, params }) => ({
      contentType: CSV_CONTENT_TYPE,
      body: submissionsCsv(await allSubmissions(prisma, identity.accountId, params.id)),
      headers: { "Content-Disposition": csvDisposition(params.id) },
    })),
  ];
}
