// /api/domains, /api/domain/*: branded domains (SPEC 2.8, 4.2) with proof of control
// (docs/legacy-api.md "Branded domains"). A domain is added pending with a fresh verification token
// and serves traffic only once verified; the Redis record the redirect reads exists only then.
import {
  brandedDomainHost,
  domainVerificationRecord,
  LegacyDomainAddBody,
  LegacyDomainUpdateBody,
  LegacyIdParams,
  parseHost,
  toLegacyDateTime,
} from "@kurz/contracts";
import type { Domain, PrismaClient } from "@kurz/db";
import { badRequest, conflict, notFound, requireIdentity } from "@kurz/service-kit";
import { Router } from "express";
import {
  createTxtLookup,
  newVerificationToken,
  releaseHostForClaim,
  type TxtLookup,
  verifyDomain,
} from "../../domain-verification.ts";
import type { LegacyRecords } from "../../legacy-records.ts";
import { legacyListBody, legacyPage } from "./list-page.ts";
import { isRecordMissing, isUniqueViolation } from "./prisma-errors.ts";

export interface LegacyDomainsDeps {
  prisma: PrismaClient;
  legacyRecords: LegacyRecords;
  baseUrl: string;
  /** TXT lookups for verification; the system's resolvers when absent. */
  domainTxtLookup?: TxtLookup;
}

const verificationFields = (domain: Domain) => ({
  status: domain.status as "pending" | "verified" | "failed",
  verified_at: domain.verifiedAt ? toLegacyDateTime(domain.verifiedAt) : null,
  last_checked_at: domain.lastCheckedAt ? toLegacyDateTime(domain.lastCheckedAt) : null,
  verification: domainVerificationRecord(domain.host, domain.verificationToken),
});

/** SPEC 2.8's fields unchanged, then where verification stands. */
export const toLegacyDomain = (domain: Domain) => ({
  id: domain.id,
  domain: domain.origin,
  redirectroot: domain.redirectRoot,
  redirect404: domain.redirect404,
  ...verificationFields(domain),
});

const domainNotFound = () => notFound("Domain not found");

const VERIFY_MESSAGES = {
  verified: "Domain has been verified.",
  failed: "The verification record was not found; the domain does not serve links.",
  pending: "Domain is pending verification.",
} as const;

/** Every spelling of the platform's own host (case, trailing dot, default port, IDNA) compares equal. */
function isPlatformHost(host: string, baseUrl: string): boolean {
  const own = parseHost(new URL(baseUrl).host);
  return own !== null && own.hostname === parseHost(host)?.hostname;
}

export function legacyDomainsRouter(deps: LegacyDomainsDeps): Router {
  const router = Router();
  const { prisma, legacyRecords } = deps;
  const txtLookup = deps.domainTxtLookup ?? createTxtLookup({ servers: [] });

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
    const url = new URL(body.domain);
    // The schema already refused IP literals, ports and single-label names; this is the canonical name.
    const branded = brandedDomainHost(url.host);
    if (!branded.ok) throw badRequest(branded.reason);
    const host = branded.host;
    if (isPlatformHost(host, deps.baseUrl)) {
      throw badRequest("This is the service's own address, not a branded domain");
    }
    await releaseHostForClaim(prisma, legacyRecords, accountId, host);
    let domain: Domain;
    try {
      domain = await prisma.domain.create({
        data: {
          accountId,
          host,
          origin: `${url.protocol}//${host}`,
          redirectRoot: body.redirectroot ?? null,
          redirect404: body.redirect404 ?? null,
          verificationToken: newVerificationToken(),
          status: "pending",
        },
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict("This domain is already in use");
      throw err;
    }
    res.json({ error: 0, id: domain.id, ...verificationFields(domain) });
  });

  router.post("/domain/:id/verify", async (req, res) => {
    const { accountId } = requireIdentity(res);
    const { id } = LegacyIdParams.parse(req.params);
    const domain = await verifyDomain({ prisma, legacyRecords, txtLookup }, accountId, id);
    const status = domain.status as keyof typeof VERIFY_MESSAGES;
    res.json({ error: 0, id: domain.id, message: VERIFY_MESSAGES[status], ...verificationFields(domain) });
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
    await legacyRecords.putDomain(domain.host, domain); // removes the record unless verified
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
