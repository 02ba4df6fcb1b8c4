// Endpoints for other Kurz services only (internal token required): the gateway's key lookup and the
// redirect's miss path.
import type { PrismaClient } from "@kurz/db";
import { Router } from "express";
import { findKeyRecord } from "../keys/find-key-record.ts";
import { resolveLink } from "../links/resolve-link.ts";
import type { RedirectRecords } from "../projections/link-records.ts";

export function internalRouter(deps: { prisma: PrismaClient; records: RedirectRecords }): Router {
  const router = Router();

  router.get("/links/resolve/:code", async (req, res) => {
    const record = await resolveLink(deps, req.params.code);
    if (!record) {
      res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such link" } });
      return;
    }
    res.json(record);
  });

  router.get("/keys/:hash", async (req, res) => {
    const record = await findKeyRecord(deps.prisma, req.params.hash);
    if (!record) {
      res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such key" } });
      return;
    }
    res.json(record);
  });

  return router;
}
