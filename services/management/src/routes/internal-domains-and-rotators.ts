// The redirect service's miss path for branded domains and rotators (internal token required). A hit
// here also writes the Redis record, healing the cache for every other redirect instance, at the
// version it read: a read made before a removal or an edit cannot undo it (decision 0052).
import { isIpLiteral, parseHost } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import {
  type DomainAndRotatorRecords,
  loadRotatorRecord,
  toDomainRecord,
} from "../projections/domain-and-rotator-records.ts";

export function internalDomainsAndRotatorsRouter(deps: {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
}): Router {
  const router = Router();
  const { prisma, domainAndRotatorRecords } = deps;

  // Hosts compare in canonical form (contracts' normalizeHost); only a verified domain exists here.
  router.get("/domains/resolve/:host", async (req, res) => {
    const parsed = parseHost(req.params.host);
    if (!parsed || parsed.port !== null || isIpLiteral(parsed.hostname))
      throw notFound("No such branded domain");
    const domain = await prisma.domain.findUnique({ where: { host: parsed.hostname } });
    if (domain?.status !== "verified") throw notFound("No such branded domain");
    await domainAndRotatorRecords.putDomain(domain);
    res.json(toDomainRecord(domain));
  });

  router.get("/rotators/resolve/:slug", async (req, res) => {
    const rotator = await loadRotatorRecord(prisma, { slug: req.params.slug });
    if (!rotator) throw notFound("No such rotator");
    await domainAndRotatorRecords.putRotator(rotator.slug, rotator.record);
    res.json(rotator.record);
  });

  return router;
}
