// What the branded-domain use cases share (docs/legacy-api.md "Branded domains"). A domain is added
// pending with a fresh verification token and serves traffic only once verified (domain-verification.ts
// holds the DNS check); the Redis record the redirect reads exists only then.
import type { PrismaClient } from "@kurz/db";
import { notFound, originHosts } from "@kurz/service-kit";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";

export interface DomainWriterDeps {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
  /** The service's public origin: its own hosts (and PUBLIC_HOSTS) are never a branded domain. */
  baseUrl: string;
  publicHosts?: readonly string[];
}

export const domainNotFound = () => notFound("Domain not found");

/**
 * Every spelling of one of the platform's own hosts (case, trailing dot, default port, IDNA) compares
 * equal (service-kit's origin-hosts.ts).
 */
export const isPlatformHost = (host: string, deps: Pick<DomainWriterDeps, "baseUrl" | "publicHosts">) =>
  originHosts(deps.baseUrl, deps.publicHosts).has(host);
