// The provider a sign-in goes through: the server's own, or a workspace's (its secret unsealed).
import type { PrismaClient, SsoConfig as SsoConfigRow } from "@kurz/db";
import { notFound, serviceUnavailable } from "@kurz/service-kit";
import type * as oidc from "openid-client";
import { ProviderUnavailable } from "./oidc-clients.ts";
import { SsoFailure } from "./sso-failure.ts";
import type { SsoSettings } from "./sso-settings.ts";

export interface ResolvedProvider {
  config: oidc.Configuration;
  /** The workspace's setting; null for the server's own provider. */
  workspace: SsoConfigRow | null;
}

const notConfigured = (what: string) => new SsoFailure("not_configured", notFound(what));

export async function providerOf(
  deps: { prisma: PrismaClient; sso: SsoSettings },
  workspaceId: string | null,
): Promise<ResolvedProvider> {
  try {
    if (workspaceId === null) {
      const { instance } = deps.sso;
      if (!instance) throw notConfigured("This server has no single sign-on provider");
      return { config: await deps.sso.clients.instance(instance), workspace: null };
    }
    const row = await deps.prisma.ssoConfig.findUnique({ where: { accountId: workspaceId } });
    if (!row) throw notConfigured("This workspace has no single sign-on provider");
    const clientSecret = deps.sso.box.open(row.clientSecretSealed);
    const config = await deps.sso.clients.workspace({
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecret,
    });
    return { config, workspace: row };
  } catch (err) {
    if (err instanceof ProviderUnavailable)
      throw new SsoFailure(
        "provider_error",
        serviceUnavailable(`The sign-in provider is unavailable: ${err.message}`),
      );
    throw err;
  }
}
