// The redirect service's miss path for branded domains and rotators (its caller credential only,
// contracts' INTERNAL_ROUTES); the use cases heal the Redis record on a hit (domains/resolve-domain.ts,
// campaigns/resolve-rotator.ts).
import { INTERNAL_ROUTES } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type InternalRoute, internalRoute, notFound } from "@kurz/service-kit";
import { resolveRotator } from "../campaigns/resolve-rotator.ts";
import { resolveDomain } from "../domains/resolve-domain.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";

export function internalDomainAndRotatorRoutes(deps: {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
}): InternalRoute[] {
  return [
    internalRoute(INTERNAL_ROUTES.resolveDomain, async (req, res) => {
      const record = await resolveDomain(deps, req.params.host);
      if (!record) throw notFound("No such branded domain");
      res.json(record);
    }),
    internalRoute(INTERNAL_ROUTES.resolveRotator, async (req, res) => {
      const record = await resolveRotator(deps, req.params.slug);
      if (!record) throw notFound("No such rotator");
      res.json(record);
    }),
  ];
}
