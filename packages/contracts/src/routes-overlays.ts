// CTA overlay routes of the older API (docs/legacy-api.md "CTA overlays"), declared once like the rest
// (decision 0010). The list route stays in routes-legacy.ts, with this file's item shape.
import { LegacyIdParams, LegacyListQuery } from "./legacy.ts";
import {
  CSV_CONTENT_TYPE,
  LegacyOverlayAddResponse,
  LegacyOverlayResponse,
  LegacyOverlaySubmissionList,
  OverlayCreateBody,
  OverlayUpdateBody,
} from "./overlays.ts";
import { legacy } from "./routes-legacy.ts";

export const OVERLAY_ROUTES = {
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
