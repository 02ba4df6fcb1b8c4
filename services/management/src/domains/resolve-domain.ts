// The redirect's miss path for a branded domain. A hit also writes the Redis record, healing the cache
// for every other redirect instance, at the version it read: a read made before a removal or an edit
// cannot undo it (decision 0052).
import { type DomainRecord, isIpLiteral, parseHost } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import { type DomainAndRotatorRecords, toDomainRecord } from "../projections/domain-and-rotator-records.ts";

/**
 * The verified domain on `host`, or null. Hosts compare in canonical form (contracts' normalizeHost);
 * a host with a port or an IP address is never a branded domain.
 */
export async function resolveDomain(
  deps: { prisma: PrismaClient; domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "putDomain"> },
  host: string,
): Promise<DomainRecord | null> {
  const parsed = parseHost(host);
  if (!parsed || parsed.port !== null || isIpLiteral(parsed.hostname)) return null;
  const domain = await deps.prisma.domain.findUnique({ where: { host: parsed.hostname } });
  if (domain?.status !== "verified") return null;
  await deps.domainAndRotatorRecords.putDomain(domain);
  return toDomainRecord(domain);
}
