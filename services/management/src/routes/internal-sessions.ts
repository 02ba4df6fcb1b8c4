// The gateway's session lookup and renewal (docs/decisions/0021-sessions-and-csrf.md), like its key
// lookup: by the SHA-256 hex of the token, caller credential "gateway" only (contracts' INTERNAL_ROUTES).
import { INTERNAL_ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type InternalRoute, internalRoute } from "@kurz/service-kit";
import type { Response } from "express";
import { renewSession } from "../sessions/renew-session.ts";
import { findLiveSession, toSessionRecord } from "../sessions/sessions.ts";

const notFound = (res: Response) =>
  res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such session" } });

const isTokenHash = (value: string) => /^[0-9a-f]{64}$/.test(value);

export function internalSessionRoutes(deps: {
  prisma: PrismaClient;
  sessionTtlMs: number;
  sessionMaxAgeMs: number;
}): InternalRoute[] {
  return [
    internalRoute(INTERNAL_ROUTES.getSession, async (req, res) => {
      const row = isTokenHash(req.params.hash) ? await findLiveSession(deps.prisma, req.params.hash) : null;
      if (!row) return void notFound(res);
      res.json(toSessionRecord(row));
    }),
    // Sliding expiry: the gateway calls this when a session in use was last renewed a while ago.
    internalRoute(INTERNAL_ROUTES.renewSession, async (req, res) => {
      const row = isTokenHash(req.params.hash)
        ? await renewSession(deps.prisma, req.params.hash, deps)
        : null;
      if (!row) return void notFound(res);
      res.json(toSessionRecord(row));
    }),
  ];
}
