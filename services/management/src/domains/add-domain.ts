// Adding a branded domain, pending until its DNS proves control.
import { brandedDomainHost, type LegacyDomainAddBody } from "@kurz/contracts";
import { type Domain, isUniqueViolation } from "@kurz/db";
import { badRequest, conflict } from "@kurz/service-kit";
import { recordCreated } from "../audit/record-audit.ts";
import { newVerificationToken, releaseHostForClaim } from "./domain-verification.ts";
import { type DomainWriterDeps, isPlatformHost } from "./domains.ts";

/**
 * Claims a host for the account, pending verification. 400 for the platform's own host, 409 for a
 * host this account has, or another account verified or recently claimed (releaseHostForClaim).
 */
export async function addDomain(
  deps: DomainWriterDeps,
  accountId: string,
  body: LegacyDomainAddBody,
): Promise<Domain> {
  const url = new URL(body.domain);
  // The schema already refused IP literals, ports and single-label names; this is the canonical name.
  const branded = brandedDomainHost(url.host);
  if (!branded.ok) throw badRequest(branded.reason);
  const host = branded.host;
  if (isPlatformHost(host, deps)) {
    throw badRequest("This is the service's own address, not a branded domain");
  }
  await releaseHostForClaim(deps.prisma, deps.domainAndRotatorRecords, accountId, host);
  try {
    return await deps.prisma.$transaction(async (tx) => {
      const domain = await tx.domain.create({
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
      await recordCreated(tx, accountId, "domain", domain.id, { host });
      return domain;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This domain is already in use");
    throw err;
  }
}
