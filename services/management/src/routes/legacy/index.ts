// The older unversioned API (SPEC 4.2), mounted at /api. It shares the prefix with /api/v1, which it
// must never shadow, so v1 paths leave this router untouched.
import type { PrismaClient } from "@kurz/db";
import { Router } from "express";
import type { TxtLookup } from "../../domain-verification.ts";
import type { LegacyRecords } from "../../legacy-records.ts";
import { legacyAccountRouter } from "./account.ts";
import { legacyCampaignsRouter } from "./campaigns.ts";
import { legacyChannelsRouter } from "./channels.ts";
import { legacyDomainsRouter } from "./domains.ts";
import { legacyOverlaysRouter } from "./overlays.ts";

export interface LegacyDeps {
  prisma: PrismaClient;
  legacyRecords: LegacyRecords;
  baseUrl: string;
  domainTxtLookup?: TxtLookup;
}

export function legacyRouter(deps: LegacyDeps): Router {
  const router = Router();
  router.use((req, _res, next) => {
    const path = req.path.toLowerCase();
    next(path === "/v1" || path.startsWith("/v1/") ? "router" : undefined);
  });
  router.use(legacyAccountRouter(deps));
  router.use(legacyDomainsRouter(deps));
  router.use(legacyOverlaysRouter(deps));
  router.use(legacyCampaignsRouter(deps));
  router.use(legacyChannelsRouter(deps));
  return router;
}
