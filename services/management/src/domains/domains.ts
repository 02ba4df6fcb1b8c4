// The older API's branded domains (SPEC 2.8, 4.2) with proof of control (docs/legacy-api.md "Branded
// domains"): list, add, update, delete; the DNS check itself is domain-verification.ts. A domain is
// added pending with a fresh verification token and serves traffic only once verified; the Redis
// record the redirect reads exists only then.
import {
  brandedDomainHost,
  type LegacyDomainAddBody,
  type LegacyDomainUpdateBody,
  type LegacyListQuery,
} from "@kurz/contracts";
import { type Domain, isRecordMissing, isUniqueViolation, type PrismaClient } from "@kurz/db";
import { badRequest, conflict, notFound, originHosts } from "@kurz/service-kit";
import { type LegacyPage, legacyPage } from "../db/numbered-page.ts";
import { afterLinksDeleted, deleteLinksInTx } from "../links/delete-links.ts";
import type { LinkWriterDeps } from "../links/link-writer.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";
import { newVerificationToken, releaseHostForClaim } from "./domain-verification.ts";

export interface DomainWriterDeps {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
  /** The service's public origin: its own hosts (and PUBLIC_HOSTS) are never a branded domain. */
  baseUrl: string;
  publicHosts?: readonly string[];
}

const domainNotFound = () => notFound("Domain not found");

/**
 * Every spelling of one of the platform's own hosts (case, trailing dot, default port, IDNA) compares
 * equal (service-kit's origin-hosts.ts).
 */
const isPlatformHost = (host: string, deps: Pick<DomainWriterDeps, "baseUrl" | "publicHosts">) =>
  originHosts(deps.baseUrl, deps.publicHosts).has(host);

/** The account's domains, newest first. */
export function listDomains(
  prisma: PrismaClient,
  accountId: string,
  query: LegacyListQuery,
): Promise<LegacyPage<Domain>> {
  const where = { accountId };
  return legacyPage(
    query,
    () => prisma.domain.count({ where }),
    (skip, take) => prisma.domain.findMany({ where, orderBy: { id: "desc" }, skip, take }),
  );
}

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
    return await deps.prisma.domain.create({
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
}

/** Changes the redirects; null removes one. */
export async function updateDomain(
  deps: Pick<DomainWriterDeps, "prisma" | "domainAndRotatorRecords">,
  accountId: string,
  id: number,
  body: LegacyDomainUpdateBody,
): Promise<Domain> {
  let domain: Domain;
  try {
    domain = await deps.prisma.domain.update({
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
  await deps.domainAndRotatorRecords.putDomain(domain); // removes the record unless verified
  return domain;
}

/**
 * Deletes the domain and every link on it, in one transaction (docs/dashboard-manage.md "Deleting a
 * domain"): a link on a branded domain is served only there, so without the domain it would be an
 * address nobody can follow, still counted against the link limit. Each link leaves as a single delete
 * does (a `link.deleted` event for analytics and webhooks, its code retired, the count lowered), then
 * the redirect drops the codes and the domain's record. Returns how many links went with it.
 *
 * The domain row is locked first: a link being created on it concurrently either committed before
 * (and is deleted here) or waits and then fails its foreign key, so no link survives its domain.
 */
export async function deleteDomain(
  deps: LinkWriterDeps & {
    domainAndRotatorRecords: Pick<DomainAndRotatorRecords, "removeDomain" | "syncRotators">;
  },
  accountId: string,
  id: number,
): Promise<{ linksDeleted: number }> {
  const { host, deleted, version } = await deps.prisma.$transaction(async (tx) => {
    const [domain] = await tx.$queryRaw<{ host: string }[]>`
      SELECT host FROM domains WHERE id = ${id} AND account_id = ${accountId}::uuid FOR UPDATE`;
    if (!domain) throw domainNotFound();
    const links = await tx.link.findMany({ where: { domainId: id, accountId }, select: { id: true } });
    const deleted = await deleteLinksInTx(
      tx,
      accountId,
      links.map((l) => l.id),
    );
    // The tombstone's version, drawn after the row's last under the delete's lock (decision 0052).
    const [gone] = await tx.$queryRaw<{ version: bigint }[]>`
      DELETE FROM domains WHERE id = ${id} RETURNING kurz_new_record_version() AS version`;
    return { host: domain.host, deleted, version: gone!.version };
  });
  await afterLinksDeleted(deps, deleted);
  await deps.domainAndRotatorRecords.removeDomain(host, { id, version });
  return { linksDeleted: deleted.links.length };
}

/** How many links each of the account's domains carries (what deleting it would delete). */
export async function linkCountsByDomain(
  prisma: PrismaClient,
  accountId: string,
  domainIds: readonly number[],
): Promise<Map<number, number>> {
  if (domainIds.length === 0) return new Map();
  const rows = await prisma.link.groupBy({
    by: ["domainId"],
    where: { accountId, domainId: { in: [...domainIds] } },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.domainId!, r._count._all]));
}
