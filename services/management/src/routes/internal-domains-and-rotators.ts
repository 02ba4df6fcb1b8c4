// The redirect service's miss path for branded domains and rotators (internal token required); the use
// cases heal the Redis record on a hit (domains/resolve-domain.ts, campaigns/resolve-rotator.ts).
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import { resolveRotator } from "../campaigns/resolve-rotator.ts";
import { resolveDomain } from "../domains/resolve-domain.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";

export function internalDomainsAndRotatorsRouter(deps: {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
}): Router {
  const router = Router();

  router.get("/domains/resolve/:host", async (req, res) => {
    const record = await resolveDomain(deps, req.params.host);
    if (!record) throw notFound("No such branded domain");
    res.json(record);
  });

  router.get("/rotators/resolve/:slug", async (req, res) => {
    const record = await resolveRotator(deps, req.params.slug);
    if (!record) throw notFound("No such rotator");
    res.json(record);
  });

  return router;
}
