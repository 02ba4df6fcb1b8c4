// CTA overlay routes of the older API (docs/legacy-api.md "CTA overlays"), declared once like the rest
// (decision 0010). The list route stays in routes-legacy.ts, with this file's item shape.
import { LegacyIdParams, LegacyListQuery } from "./legacy.ts";
import {
  CSV_CONTENT_TYPE,
  LegacyOverlayAddResponse,
  LegacyOverlayResponse,
  LegacyOverlaySubmissionList,
  OverlayCreateBody,
  OverlayDeletedResponse,
  OverlayIdParams,
  OverlayListQuery,
  OverlayListResponse,
  OverlayResponse,
  OverlaySubmissionListResponse,
  OverlayUpdateBody,
} from "./overlays.ts";
import { defineRoute } from "./routes.ts";
import { legacy } from "./routes-legacy.ts";

const V1 = "/api/v1/overlays";
const v1 = { tag: "overlays", auth: "key" } as const;

export const OVERLAY_ROUTES = {
  listOverlays: defineRoute({
    ...v1,
    method: "GET",
    path: V1,
    summary: "List CTA overlays, newest first",
    query: OverlayListQuery,
    status: 200,
    response: OverlayListResponse,
    errors: ["VALIDATION_ERROR"],
  }),
  createOverlay: defineRoute({
    ...v1,
    method: "POST",
    path: V1,
    summary: "Create a CTA overlay",
    body: OverlayCreateBody,
    status: 201,
    response: OverlayResponse,
    errors: ["VALIDATION_ERROR"],
  }),
  getOverlay: defineRoute({
    ...v1,
    method: "GET",
    path: `${V1}/:id`,
    summary: "Read a CTA overlay",
    params: OverlayIdParams,
    status: 200,
    response: OverlayResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  updateOverlay: defineRoute({
    ...v1,
    method: "PATCH",
    path: `${V1}/:id`,
    summary: "Edit a CTA overlay",
    params: OverlayIdParams,
    body: OverlayUpdateBody,
    status: 200,
    response: OverlayResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  deleteOverlay: defineRoute({
    ...v1,
    method: "DELETE",
    path: `${V1}/:id`,
    summary: "Delete a CTA overlay (its links lose it)",
    params: OverlayIdParams,
    status: 200,
    response: OverlayDeletedResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  listOverlaySubmissions: defineRoute({
    ...v1,
    method: "GET",
    path: `${V1}/:id/submissions`,
    summary: "Contact form submissions of an overlay, newest first",
    params: OverlayIdParams,
    query: OverlayListQuery,
    status: 200,
    response: OverlaySubmissionListResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  exportOverlaySubmissions: defineRoute({
    ...v1,
    method: "GET",
    path: `${V1}/:id/submissions/export`,
    summary: "Every submission of an overlay as CSV",
    params: OverlayIdParams,
    status: 200,
    produces: [CSV_CONTENT_TYPE],
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyAddOverlay: legacy("POST", "/overlay/add", "Create a CTA overlay", {
    body: OverlayCreateBody,
    response: LegacyOverlayAddResponse,
    errors: ["VALIDATION_ERROR"],
  }),
  legacyGetOverlay: legacy("GET", "/overlay/:id", "Read a CTA overlay", {
    params: LegacyIdParams,
    response: LegacyOverlayResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyUpdateOverlay: legacy("PUT", "/overlay/:id/update", "Edit a CTA overlay", {
    params: LegacyIdParams,
    body: OverlayUpdateBody,
    response: LegacyOverlayResponse,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyDeleteOverlay: legacy("DELETE", "/overlay/:id/delete", "Delete a CTA overlay (its links lose it)", {
    params: LegacyIdParams,
    errors: ["VALIDATION_ERROR", "NOT_FOUND"],
  }),
  legacyListOverlaySubmissions: legacy(
    "GET",
    "/overlay/:id/submissions",
    "Contact form submissions of an overlay, newest first",
    {
      params: LegacyIdParams,
      query: LegacyListQuery,
      response: LegacyOverlaySubmissionList,
      errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    },
  ),
  legacyExportOverlaySubmissions: {
    ...legacy("GET", "/overlay/:id/submissions/export", "Every submission of an overlay as CSV", {
      params: LegacyIdParams,
      errors: ["VALIDATION_ERROR", "NOT_FOUND"],
    }),
    response: undefined,
    produces: [CSV_CONTENT_TYPE],
  },
} as const;
