// Proof of control for branded domains (docs/security.md "Branded domains"): the owner publishes
// `kurz-verify=<token>` as a TXT record at `_kurz-verify.<host>`, then asks for a check. A domain
// serves traffic only while verified: a check that finds no matching record fails it (even one that
// was verified before), and its Redis record, the only thing the redirect reads, is removed.
import { randomBytes } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { type DomainStatus, domainVerificationRecord } from "@kurz/contracts";
import type { Domain, PrismaClient } from "@kurz/db";
import { conflict, notFound, serviceUnavailable, withTimeout } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import type { DomainAndRotatorRecords } from "../projections/domain-and-rotator-records.ts";

/** 128 random bits as 32 hex characters: unguessable, and fits one TXT string with room to spare. */
export const newVerificationToken = (): string => randomBytes(16).toString("hex");

/**
 * How long another account's unverified claim holds a host. Within it a second claim is refused
 * (409), so a claim cannot be knocked out while its owner is still publishing the record; after it
 * anyone may claim the host afresh, so a squatter who can never verify blocks the real owner for a
 * bounded time only.
 */
export const UNVERIFIED_CLAIM_HOLD_MS = 72 * 60 * 60 * 1000;

/** TXT records of a name as lists of strings (one list per record), or a DNS error with a code. */
export type TxtLookup = (name: string) => Promise<string[][]>;

const NO_RECORD_CODES = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * TXT lookups through `servers` (`ip[:port]`; empty = the system's resolvers). Each lookup is bounded
 * by `timeoutMs` in all: c-ares' own timeout is per try, so a timer cancels whatever is still pending.
 */
export function createTxtLookup(opts: { servers: string[]; timeoutMs?: number }): TxtLookup {
  const timeoutMs = opts.timeoutMs ?? 5000;
  return async (name) => {
    const resolver = new Resolver({ timeout: Math.ceil(timeoutMs / 2), tries: 2 });
    if (opts.servers.length > 0) resolver.setServers(opts.servers);
    return withTimeout(resolver.resolveTxt(name), timeoutMs, "TXT lookup", () => resolver.cancel());
  };
}

/**
 * Whether DNS proves control of `host` with `token`: "verified" when some TXT record at the
 * verification name reads exactly the expected value (a record's strings joined, as RFC 7208 does),
 * "failed" when the name or its TXT records are missing or none matches. Anything else (timeout,
 * SERVFAIL, refused) proves nothing either way and is thrown.
 */
export async function checkDomainControl(
  lookup: TxtLookup,
  host: string,
  token: string,
): Promise<DomainStatus> {
  const { name, value } = domainVerificationRecord(host, token);
  let records: string[][];
  try {
    records = await lookup(name);
  } catch (err) {
    if (NO_RECORD_CODES.has((err as NodeJS.ErrnoException).code ?? "")) return "failed";
    throw err;
  }
  return records.some((chunks) => chunks.join("") === value) ? "verified" : "failed";
}

export interface DomainVerificationDeps {
  prisma: PrismaClient;
  domainAndRotatorRecords: DomainAndRotatorRecords;
  txtLookup: TxtLookup;
  logger?: { warn(o: object, m?: string): void };
}

/**
 * `POST /api/domain/:id/verify`: checks the owner's domain now, stores the outcome and writes or
 * removes the Redis record to match. Another account's domain is not found.
 */
export async function verifyDomain(
  deps: DomainVerificationDeps,
  accountId: string,
  id: number,
): Promise<Domain> {
  const { prisma, domainAndRotatorRecords } = deps;
  const domain = await prisma.domain.findFirst({ where: { id, accountId } });
  if (!domain) throw notFound("Domain not found");
  let outcome: DomainStatus;
  try {
    outcome = await checkDomainControl(deps.txtLookup, domain.host, domain.verificationToken);
  } catch (err) {
    deps.logger?.warn({ err: String(err), host: domain.host }, "domain verification lookup failed");
    throw serviceUnavailable("The DNS lookup failed; the domain's status is unchanged, try again later");
  }
  const now = new Date();
  // Guarded on the token read above: a concurrent delete (or re-add with a new token) wins.
  const { count } = await prisma.$transaction(async (tx) => {
    const changed = await tx.domain.updateMany({
      where: { id, accountId, verificationToken: domain.verificationToken },
      data:
        outcome === "verified"
          ? { status: "verified", verifiedAt: now, lastCheckedAt: now }
          : { status: "failed", lastCheckedAt: now },
    });
    if (changed.count > 0) {
      await recordAudit(tx, {
        accountId,
        action: "domain.verification_checked",
        resourceType: "domain",
        resourceId: id,
        details: { status: outcome },
      });
    }
    return changed;
  });
  if (count === 0) throw notFound("Domain not found");
  const updated = await prisma.domain.findFirst({ where: { id, accountId } });
  if (!updated) throw notFound("Domain not found");
  await domainAndRotatorRecords.putDomain(updated); // removes the record unless verified
  return updated;
}

/**
 * Makes room for a new claim of `host` by `accountId`: refuses a host this account already has, or
 * that another account has verified or claimed within UNVERIFIED_CLAIM_HOLD_MS; removes another
 * account's older unverified claim. The unique index on `host` settles any race that follows.
 */
export async function releaseHostForClaim(
  prisma: PrismaClient,
  domainAndRotatorRecords: DomainAndRotatorRecords,
  accountId: string,
  host: string,
  now = new Date(),
): Promise<void> {
  const existing = await prisma.domain.findUnique({ where: { host } });
  if (!existing) return;
  if (existing.accountId === accountId) throw conflict("This domain is already in use");
  if (existing.status === "verified") throw conflict("This domain is already in use");
  // A claim's hold restarts with each successful verification, never with a failed attempt, so a
  // squatter cannot extend it by asking for checks.
  const since = Math.max(existing.createdAt.getTime(), existing.verifiedAt?.getTime() ?? 0);
  if (now.getTime() - since < UNVERIFIED_CLAIM_HOLD_MS) {
    throw conflict("This domain is already in use (pending verification by another account)");
  }
  // The tombstone's version is drawn after the row's last, under the delete's lock (decision 0052).
  const [deleted] = await prisma.$queryRaw<{ version: bigint }[]>`
    DELETE FROM domains
    WHERE id = ${existing.id} AND status <> 'verified' AND verification_token = ${existing.verificationToken}
    RETURNING kurz_new_record_version() AS version`;
  if (deleted)
    await domainAndRotatorRecords.removeDomain(host, { id: existing.id, version: deleted.version });
}
