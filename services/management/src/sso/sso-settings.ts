// What single sign-on needs from management's config, made once: the server's own provider, the box
// that seals workspaces' client secrets, the key their domain proofs are derived with, and the SSRF
// guard that workspaces' providers are fetched through.
import { hkdfSync } from "node:crypto";
import type { Logger } from "@kurz/service-kit";
import type { AuthDeps } from "../accounts/auth-deps.ts";
import type { ManagementConfig } from "../config.ts";
import type { TxtLookup } from "../domains/domain-verification.ts";
import { PublicAddressGuard } from "../security/public-address-guard.ts";
import { SecretBox } from "../webhooks/secrets.ts";
import { OidcClients } from "./oidc-clients.ts";

export interface InstanceProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's label: "Sign in with <name>". */
  name: string;
}

export interface SsoSettings {
  /** OIDC_ISSUER and its client: the operator's provider, trusted as configured. */
  instance: InstanceProvider | null;
  /** Seals workspaces' client secrets at rest. */
  box: SecretBox;
  /** Derives each workspace's domain proof token (sso/domain-proof.ts). */
  domainKey: Buffer;
  /** Providers' configurations; workspaces' are reached only through the SSRF guard. */
  clients: OidcClients;
}

export type SsoDeps = AuthDeps & {
  sso: SsoSettings;
  logger: Logger;
  domainTxtLookup: TxtLookup;
};

export function ssoSettingsFrom(
  config: Pick<
    ManagementConfig,
    | "OIDC_ISSUER"
    | "OIDC_CLIENT_ID"
    | "OIDC_CLIENT_SECRET"
    | "OIDC_NAME"
    | "SSO_ALLOW_HOSTS"
    | "SSO_TIMEOUT_MS"
    | "WEBHOOK_SECRETS_KEY"
  >,
): SsoSettings {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = config;
  return {
    instance:
      issuer && clientId && clientSecret ? { issuer, clientId, clientSecret, name: config.OIDC_NAME } : null,
    box: new SecretBox(config.WEBHOOK_SECRETS_KEY, "sso client secrets"),
    domainKey: Buffer.from(
      hkdfSync("sha256", config.WEBHOOK_SECRETS_KEY, "kurz", "kurz sso domain proofs v1", 32),
    ),
    clients: new OidcClients(new PublicAddressGuard(config.SSO_ALLOW_HOSTS), config.SSO_TIMEOUT_MS),
  };
}
