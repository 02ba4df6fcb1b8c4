// The redirect service's miss path for branded domains and rotators (internal token required). A hit
// here also rewrites the Redis record, healing the cache for every other redirect instance.
import type { PrismaClient } from "@kurz/db";
import { notFound } from "@kurz/service-kit";
import { Router } from "express";
import { type LegacyRecords, loadRotatorRecord, toDomainRecord } from "../legacy-records.ts";

export function internalLegacyRouter(deps: { prisma: PrismaClient; legacyRecords: LegacyRecords }): Router {
  const router = Router();
  const { prisma, legacyRecords } = deps;

  router.get("/domains/resolve/:host", async (req, res) => {
    const host = req.params.host.toLowerCase();
    const domain = await prisma.domain.findUnique({ where: { host } });
    if (!domain) throw notFound("No such branded domain");
    await legacyRecords.putDomain(domain.host, domain);
    res.json(toDomainRecord(domain));
  });

  router.get("/rotators/resolve/:slug", async (req, res) => {
    const rotator = await loadRotatorRecord(prisma, { slug: req.params.slug });
    if (!rotator) throw notFound("No such rotator");
    await legacyRecords.putRotator(rotator.slug, rotator.record);
    res.json(rotator.record);
  });

  return router;
}
