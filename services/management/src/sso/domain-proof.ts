// Proof that a workspace controls an e-mail domain before its provider may speak for the domain's
// addresses: a TXT record `_kurz-verify.<domain>` reading `kurz-verify=<token>`, the form branded
// domains use. The token is derived from the workspace's id under a server key, so it needs no
// storage, is the same on every request, and differs between workspaces: one workspace's record
// proves nothing for another.
import { createHmac } from "node:crypto";
import { domainVerificationRecord } from "@kurz/contracts";
import { badRequest, serviceUnavailable } from "@kurz/service-kit";
import { checkDomainControl, type TxtLookup } from "../domains/domain-verification.ts";

export const domainProofToken = (key: Buffer, workspaceId: string): string =>
  createHmac("sha256", key).update(`sso-domain\u0000${workspaceId}`).digest("hex").slice(0, 32);

export const domainProofRecords = (key: Buffer, workspaceId: string, domains: readonly string[]) =>
  domains.map((domain) => ({
    domain,
    ...domainVerificationRecord(domain, domainProofToken(key, workspaceId)),
  }));

/** Refuses (400, naming the records to publish) unless DNS proves control of every domain. */
export async function requireDomainProofs(
  lookup: TxtLookup,
  key: Buffer,
  workspaceId: string,
  domains: readonly string[],
): Promise<void> {
  const token = domainProofToken(key, workspaceId);
  const results = await Promise.all(
    domains.map(async (domain) => {
      try {
        return { domain, status: await checkDomainControl(lookup, domain, token) };
      } catch {
        throw serviceUnavailable(`DNS did not answer for ${domain}; try again`);
      }
    }),
  );
  const unproven = results.filter((r) => r.status !== "verified").map((r) => r.domain);
  if (unproven.length > 0) {
    throw badRequest(
      `Publish these TXT records to prove the workspace controls ${unproven.join(", ")}, then save again`,
      { records: domainProofRecords(key, workspaceId, unproven) },
    );
  }
}
