// GET /api/v1/auth/oidc/start: the authorization request. State, nonce and the PKCE verifier stay on
// the server (flows.ts); the browser gets only the flow's handle in a short-lived cookie and the
// provider only the state, the nonce and the verifier's challenge.
import type { PrismaClient } from "@kurz/db";
import type { Redis } from "ioredis";
import * as oidc from "openid-client";
import { saveFlow } from "./flows.ts";
import { providerOf } from "./provider-of.ts";
import { callbackUrl } from "./sso-failure.ts";
import type { SsoSettings } from "./sso-settings.ts";

export async function startSso(
  deps: { prisma: PrismaClient; redis: Redis; sso: SsoSettings; baseUrl: string },
  workspaceId: string | null,
): Promise<{ location: string; handle: string }> {
  const { config } = await providerOf(deps, workspaceId);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const handle = await saveFlow(deps.redis, { workspaceId, state, nonce, verifier });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(deps.baseUrl),
    scope: "openid email",
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
  });
  return { location: url.href, handle };
}
