// The redirect's calls about CTA overlays (its caller credential only, contracts' INTERNAL_ROUTES): the
// miss path of `overlay:<id>` records, and the contact submissions visitors post on the public origin.
// The redirect has already rate limited the visitor (per client and link) and sends no address: none
// is stored.
import { INTERNAL_ROUTES, InternalOverlaySubmission } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { ApiError, type InternalRoute, internalRoute, notFound } from "@kurz/service-kit";
import express from "express";
import { resolveOverlay } from "../overlays/resolve-overlay.ts";
import { storeSubmission } from "../overlays/store-submission.ts";
import type { OverlayRecords } from "../projections/overlay-records.ts";

export function internalOverlayRoutes(deps: {
  prisma: PrismaClient;
  overlayRecords: OverlayRecords;
}): InternalRoute[] {
  const { prisma } = deps;
  return [
    internalRoute(INTERNAL_ROUTES.resolveOverlay, async (req, res) => {
      const record = await resolveOverlay(deps, req.params.id);
      if (!record) throw notFound("No such overlay");
      res.json(record);
    }),
    internalRoute(INTERNAL_ROUTES.submitOverlay, express.json({ limit: "8kb" }), async (req, res) => {
      const parsed = InternalOverlaySubmission.safeParse(req.body);
      if (!parsed.success) {
        throw new ApiError(400, "VALIDATION_ERROR", "Invalid submission", parsed.error.format());
      }
      const { short_code, ...fields } = parsed.data;
      const stored = await storeSubmission(prisma, short_code, fields);
      if (!stored) throw notFound("No contact overlay on this link");
      res.status(201).json({ id: stored.id });
    }),
  ];
}
