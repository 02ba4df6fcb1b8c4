// The gateway's session lookup and renewal (docs/decisions/0021-sessions-and-csrf.md), like its key
// lookup: by the SHA-256 hex of the token, caller credential "gateway" only (app.ts).
import type { PrismaClient } from "@kurz/db";
import { type Response, Router } from "express";
import { renewSession } from "../sessions/renew-session.ts";
import { findLiveSession, toSessionRecord } from "../sessions/sessions.ts";

const notFound = (res: Response) =>
  res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such session" } });

const isTokenHash = (value: string) => /^[0-9a-f]{64}$/.test(value);

export function internalSessionsRouter(deps: {
  prisma: PrismaClient;
  sessionTtlMs: number;
  sessionMaxAgeMs: number;
}): Router {
  const router = Router();

  router.get("/:hash", async (req, res) => {
    const row = isTokenHash(req.params.hash) ? await findLiveSession(deps.prisma, req.params.hash) : null;
    if (!row) return void notFound(res);
    res.json(toSessionRecord(row));
  });

  // Sliding expiry: the gateway calls this when a session in use was last renewed a while ago.
  router.post("/:hash/renew", async (req, res) => {
    const row = isTokenHash(req.params.hash) ? await renewSession(deps.prisma, req.params.hash, deps) : null;
    if (!row) return void notFound(res);
    res.json(toSessionRecord(row));
  });

  return router;
}
