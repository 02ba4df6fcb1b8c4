// /api/domains, /api/domain/*: branded domains (SPEC 2.8, 4.2). Each write goes through to the Redis
// record the redirect service reads, keyed by host.
import { LegacyDomainAddBody, LegacyDomainUpdateBody, LegacyIdParams } from "@kurz/contracts";
import type { Domain, PrismaClient } from "@kurz/db";
import { badRequest, conflict, notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import type { LegacyRecords } from "../../legacy-records.ts";
import { legacyListBody, legacyPage } from "./list-page.ts";
import { isRecordMissing, isUniqueViolation } from "./prisma-errors.ts";

export interface LegacyDomainsDeps {
  prisma: PrismaClient;
  legacyRecords: LegacyRecords;
  baseUrl: string;
}

export const toLegacyDomain = (domain: Domain) => ({
  id: domain.id,
  domain: domain.origin,
  redirectroot: domain.redirectRoot,
  redirect404: domain.redirect404,
});

const domainNotFound = () => notFound("Domain not found");

export function legacyDomainsRouter(deps: LegacyDomainsDeps): Router {
  const router = Router();
  const { prisma, legacyRecords } = deps;
  const ownHost = new URL(deps.baseUrl).host;

  router.get("/domains", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const where = { accountId };
    const page = await legacyPage(
      req.query,
      () => prisma.domain.count({ where }),
      (skip, take) => prisma.domain.findMany({ where, orderBy: { id: "desc" }, skip, take }),
    );
    res.json(legacyListBody("domains", { ...page, items: page.items.map(toLegacyDomain) }));
  });

  router.post("/domain/add", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const body = LegacyDomainAddBody.parse(req.body);
    // URL lower-cases the host and drops a default port, so equal hosts compare equal.
    const url = new URL(body.domain);
    if (url.host === ownHost) throw badRequest("This is the service's own address, not a branded domain");
    let domain: Domain;
    try {
      domain = await prisma.domain.create({
        data: {
          accountId,
          host: url.host,
          origin: url.origin,
          redirectRoot: body.redirectroot ?? null,
          redirect404: body.redirect404 ?? null,
        },
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict("This domain is already in use");
      throw err;
    }
    await legacyRecords.putDomain(domain.host, domain);
    res.json({ error: 0, id: domain.id });
  });

  router.put("/domain/:id/update", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    const body = LegacyDomainUpdateBody.parse(req.body);
    let domain: Domain;
    try {
      domain = await prisma.domain.update({
        where: { id, accountId },
        data: {
          ...(body.redirectroot !== undefined ? { redirectRoot: body.redirectroot } : {}),
          ...(body.redirect404 !== undefined ? { redirect404: body.redirect404 } : {}),
        },
      });
    } catch (err) {
      if (isRecordMissing(err)) throw domainNotFound();
      throw err;
    }
    await legacyRecords.putDomain(domain.host, domain);
    res.json({ error: 0, message: "Domain has been updated successfully." });
  });

  router.delete("/domain/:id/delete", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    let domain: Domain;
    try {
      domain = await prisma.domain.delete({ where: { id, accountId } });
    } catch (err) {
      if (isRecordMissing(err)) throw domainNotFound();
      throw err;
    }
    await legacyRecords.removeDomain(domain.host);
    res.json({ error: 0, message: "Domain has been deleted successfully." });
  });

  return router;
}
