// Endpoints for other Kurz services only (internal token required): the gateway's key lookup and the
// redirect's miss path.
import type { KeyRecord } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { Router } from "express";
import { toKeyRecord } from "../keys/api-keys.ts";
import type { RedirectRecords } from "../projections/link-records.ts";
import { toRedirectRecord } from "../projections/link-records.ts";

export function internalRouter(deps: { prisma: PrismaClient; records: RedirectRecords }): Router {
  const router = Router();
  const { prisma } = deps;

  router.get("/links/resolve/:code", async (req, res) => {
    const link = await prisma.link.findUnique({ where: { shortCode: req.params.code } });
    if (!link) {
      res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such link" } });
      return;
    }
    await deps.records.put(link); // heal the cache for every other redirect instance
    res.json(toRedirectRecord(link));
  });

  router.get("/keys/:hash", async (req, res) => {
    // Only a SHA-256 hex digest can name a key; anything else is unknown without a query.
    const key = /^[0-9a-f]{64}$/.test(req.params.hash)
      ? await prisma.apiKey.findUnique({ where: { keyHash: req.params.hash } })
      : null;
    if (!key) {
      res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such key" } });
      return;
    }
    const record: KeyRecord = toKeyRecord(key);
    res.json(record);
  });

  return router;
}
