// After the password (a sign-in, a reset, an accepted invitation): for a user with a second factor, the
// challenge that asks for it, with passkey options when they have passkeys.
import type { TwoFactorChallenge } from "@kurz/contracts";
import { generateAuthenticationOptions } from "@simplewebauthn/server";
import { CHALLENGE_SECONDS, issueChallenge } from "./challenge.ts";
import { factorsOf, hasSecondFactor, methodsOf, type TwoFactorDeps } from "./factors.ts";

/** The challenge, or null when the user has no second factor (the password is then enough). */
export async function startSecondFactor(
  deps: Pick<TwoFactorDeps, "prisma" | "redis" | "relyingParty">,
  userId: string,
  now = new Date(),
): Promise<TwoFactorChallenge | null> {
  const factors = await factorsOf(deps.prisma, userId);
  if (!hasSecondFactor(factors)) return null;
  let passkeyOptions: Record<string, unknown> | null = null;
  if (factors.passkeys > 0) {
    const passkeys = await deps.prisma.passkey.findMany({
      where: { userId },
      select: { id: true, transports: true },
    });
    const options = await generateAuthenticationOptions({
      rpID: deps.relyingParty.id,
      allowCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports as never })),
      userVerification: "preferred",
    });
    passkeyOptions = { ...options };
  }
  const challenge = await issueChallenge(deps.redis, {
    userId,
    webauthnChallenge: typeof passkeyOptions?.challenge === "string" ? passkeyOptions.challenge : null,
  });
  return {
    two_factor_required: true,
    challenge,
    methods: methodsOf(factors),
    expires_at: new Date(now.getTime() + CHALLENGE_SECONDS * 1000).toISOString(),
    passkey_options: passkeyOptions,
  };
}
