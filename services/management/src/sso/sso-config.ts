// A workspace's own provider (GET, PUT, DELETE /api/v1/workspaces/:id/sso), owners only. Saving checks
// DNS proof of every domain, then reads the provider's discovery document through the SSRF guard, so
// a workspace speaks only for addresses it controls and a setting that is stored can be used.
import type { PutSsoConfigBody, SsoConfig } from "@kurz/contracts";
import type { PrismaClient, SsoConfig as SsoConfigRow } from "@kurz/db";
import { badRequest, notFound } from "@kurz/service-kit";
import { recordAudit } from "../audit/record-audit.ts";
import type { TxtLookup } from "../domains/domain-verification.ts";
import { type Caller, requireOwnWorkspace } from "../workspaces/workspaces.ts";
import { domainProofRecords, requireDomainProofs } from "./domain-proof.ts";
import { ProviderUnavailable } from "./oidc-clients.ts";
import { callbackUrl } from "./sso-failure.ts";
import type { SsoSettings } from "./sso-settings.ts";

export interface SsoConfigDeps {
  prisma: PrismaClient;
  sso: SsoSettings;
  domainTxtLookup: TxtLookup;
  baseUrl: string;
}

const noConfig = () => notFound("This workspace has no single sign-on provider");

function toSsoConfig(deps: SsoConfigDeps, row: SsoConfigRow): SsoConfig {
  const base = deps.baseUrl.replace(/\/+$/, "");
  return {
    workspace_id: row.accountId,
    issuer: row.issuer,
    client_id: row.clientId,
    client_secret_set: true,
    domains: row.domains,
    default_role: row.defaultRole as SsoConfig["default_role"],
    redirect_uri: callbackUrl(deps.baseUrl),
    sign_in_url: `${base}/login?sso=${row.accountId}`,
    domain_records: domainProofRecords(deps.sso.domainKey, row.accountId, row.domains),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function getSsoConfig(deps: SsoConfigDeps, caller: Caller, id: string): Promise<SsoConfig> {
  requireOwnWorkspace(caller, id);
  const row = await deps.prisma.ssoConfig.findUnique({ where: { accountId: caller.accountId } });
  if (!row) throw noConfig();
  return toSsoConfig(deps, row);
}

export async function putSsoConfig(
  deps: SsoConfigDeps,
  caller: Caller,
  id: string,
  body: PutSsoConfigBody,
): Promise<SsoConfig> {
  requireOwnWorkspace(caller, id);
  const accountId = caller.accountId;
  const domains = [...new Set(body.domains)];
  const stored = await deps.prisma.ssoConfig.findUnique({ where: { accountId } });
  let clientSecret = body.client_secret;
  if (clientSecret === undefined) {
    if (!stored) throw badRequest("client_secret is required the first time");
    clientSecret = deps.sso.box.open(stored.clientSecretSealed);
  }
  // DNS first: nothing is fetched from a provider for a workspace that has proven no domain.
  await requireDomainProofs(deps.domainTxtLookup, deps.sso.domainKey, accountId, domains);
  try {
    await deps.sso.clients.workspace({ issuer: body.issuer, clientId: body.client_id, clientSecret });
  } catch (err) {
    if (err instanceof ProviderUnavailable) throw badRequest(err.message);
    throw err;
  }
  const data = {
    issuer: body.issuer,
    clientId: body.client_id,
    clientSecretSealed: deps.sso.box.seal(clientSecret),
    domains,
    defaultRole: body.default_role,
  };
  const row = await deps.prisma.$transaction(async (tx) => {
    const saved = await tx.ssoConfig.upsert({
      where: { accountId },
      create: { accountId, ...data },
      update: data,
    });
    await recordAudit(tx, {
      accountId,
      action: "sso.configured",
      resourceType: "sso",
      resourceId: accountId,
      details: { issuer: body.issuer, domains, default_role: body.default_role },
    });
    return saved;
  });
  return toSsoConfig(deps, row);
}

export async function deleteSsoConfig(deps: SsoConfigDeps, caller: Caller, id: string) {
  requireOwnWorkspace(caller, id);
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.ssoConfig.deleteMany({ where: { accountId: caller.accountId } });
    if (count === 0) throw noConfig();
    await recordAudit(tx, {
      accountId: caller.accountId,
      action: "sso.removed",
      resourceType: "sso",
      resourceId: caller.accountId,
    });
  });
  return { workspace_id: caller.accountId, deleted: true as const };
}
