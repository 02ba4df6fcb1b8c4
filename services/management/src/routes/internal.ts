// Endpoints for other Kurz services only (internal token required): the gateway's key lookup and the
// redirect's miss path.
import type { PrismaClient } from "@kurz/db";
import { Router } from "express";
import type { RedirectRecords } from "../redirect-records.ts";
import { toRedirectRecord } from "../redirect-records.ts";

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
    const key = await prisma.apiKey.findUnique({ where: { keyHash: req.params.hash } });
    if (!key) {
      res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such key" } });
      return;
    }
    res.json({
      key_id: key.id,
      account_id: key.accountId,
      name: key.name,
      rate_limit_per_minute: key.rateLimitPerMinute,
      rate_limit_per_hour: key.rateLimitPerHour,
      expires_at: key.expiresAt?.toISOString() ?? null,
      revoked: key.revokedAt !== null,
    });
  });

  return router;
}
