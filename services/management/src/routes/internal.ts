// The gateway's key lookup and the redirect's miss path for links (contracts' INTERNAL_ROUTES: each
// record names the caller it takes, and mountInternal checks it).
import { INTERNAL_ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type InternalRoute, internalRoute } from "@kurz/service-kit";
import { findKeyRecord } from "../keys/find-key-record.ts";
import { resolveLink } from "../links/resolve-link.ts";
import type { RedirectRecords } from "../projections/link-records.ts";

export function internalLinkAndKeyRoutes(deps: {
  prisma: PrismaClient;
  records: RedirectRecords;
}): InternalRoute[] {
  return [
    internalRoute(INTERNAL_ROUTES.resolveLink, async (req, res) => {
      const record = await resolveLink(deps, req.params.code);
      if (!record) {
        res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such link" } });
        return;
      }
      res.json(record);
    }),
    internalRoute(INTERNAL_ROUTES.getKey, async (req, res) => {
      const record = await findKeyRecord(deps.prisma, req.params.hash);
      if (!record) {
        res.status(404).json({ success: false, error: { code: "NOT_FOUND", message: "No such key" } });
        return;
      }
      res.json(record);
    }),
  ];
}
