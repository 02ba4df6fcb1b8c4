// GET /api/v1/auth/sso: the buttons the sign-in page shows. The server's provider by its OIDC_NAME; a
// workspace's (when the page was opened with its id, from the link its owners share) by a generic
// label, so an id tells a stranger no workspace's name.
import type { SsoProviders } from "@kurz/contracts";
import type { PrismaClient } from "@kurz/db";
import type { SsoSettings } from "./sso-settings.ts";

const START = "/api/v1/auth/oidc/start";

export async function listSsoProviders(
  deps: { prisma: PrismaClient; sso: SsoSettings },
  workspaceId: string | undefined,
): Promise<SsoProviders> {
  const providers: SsoProviders["providers"] = [];
  if (workspaceId !== undefined) {
    const row = await deps.prisma.ssoConfig.findUnique({
      where: { accountId: workspaceId },
      select: { accountId: true },
    });
    if (row) providers.push({ name: "your organisation", start_url: `${START}?workspace=${row.accountId}` });
  }
  if (deps.sso.instance) providers.push({ name: deps.sso.instance.name, start_url: START });
  return { providers };
}
