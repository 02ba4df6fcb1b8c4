// Signing in with a passkey alone (POST /api/v1/auth/login/passkey/options, then .../login/passkey):
// the browser picks one of its discoverable credentials for this site, verified by the user (PIN or
// biometrics), which makes it both factors at once. A forged assertion cannot be guessed, so no
// budget is spent here; the client's request budget at the gateway still applies.

import { unauthorized } from "@kurz/service-kit";
import { generateAuthenticationOptions } from "@simplewebauthn/server";
import { hashToken, newToken } from "../security/tokens.ts";
import { finishSignIn, type SignInClient, type SignInDeps } from "../sessions/finish-sign-in.ts";
import { keepWebAuthnChallenge, takeWebAuthnChallenge } from "./challenge.ts";
import type { TwoFactorDeps } from "./factors.ts";
import { verifyAssertion } from "./passkey-assertion.ts";

const signInKey = (token: string) => `sign-in:${hashToken(token)}`;

export async function passkeySignInOptions(deps: Pick<TwoFactorDeps, "redis" | "relyingParty">) {
  const options = await generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    userVerification: "required",
  });
  const challenge = newToken();
  await keepWebAuthnChallenge(deps.redis, signInKey(challenge), options.challenge);
  return { challenge, options: { ...options } };
}

export async function passkeySignIn(
  deps: SignInDeps & TwoFactorDeps,
  body: { challenge: string; response: Record<string, unknown> },
  client: SignInClient,
  now = new Date(),
) {
  const expected = await takeWebAuthnChallenge(deps.redis, signInKey(body.challenge));
  if (expected === null) throw unauthorized("This passkey sign-in has expired or was used: start again");
  const userId = await verifyAssertion(deps, body.response, expected, {
    userId: null,
    requireUserVerification: true,
    now,
  });
  if (userId === null)
    throw unauthorized("This passkey did not sign in: it is unknown here or its answer is invalid");
  const user = await deps.prisma.user.findUnique({
    where: { id: userId },
    select: { id: true, email: true },
  });
  if (!user) throw unauthorized("This passkey did not sign in: it is unknown here or its answer is invalid");
  return finishSignIn(deps, user, client, "passkey");
}
