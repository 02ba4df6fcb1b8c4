// Checking a passkey's assertion (navigator.credentials.get's answer) with @simplewebauthn/server: the
// credential must be one stored here (for `userId` when the user is known), signed over our challenge
// for our origin, and its signature counter must not go back (a cloned authenticator), which the
// counter's compare-and-set also enforces between two requests at once.
import type { PrismaClient } from "@kurz/db";
import { type AuthenticationResponseJSON, verifyAuthenticationResponse } from "@simplewebauthn/server";
import type { RelyingParty } from "./factors.ts";

/** The user the assertion signs in, or null when it is not a valid one. */
export async function verifyAssertion(
  deps: { prisma: PrismaClient; relyingParty: RelyingParty },
  response: Record<string, unknown>,
  expectedChallenge: string,
  options: { userId: string | null; requireUserVerification: boolean; now: Date },
): Promise<string | null> {
  const id = typeof response.id === "string" ? response.id : null;
  if (id === null || id.length > 1400) return null;
  const stored = await deps.prisma.passkey.findUnique({ where: { id } });
  if (!stored || (options.userId !== null && stored.userId !== options.userId)) return null;
  const verified = await verifyAuthenticationResponse({
    response: response as unknown as AuthenticationResponseJSON,
    expectedChallenge,
    expectedOrigin: deps.relyingParty.origins,
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: options.requireUserVerification,
    credential: {
      id: stored.id,
      publicKey: new Uint8Array(stored.publicKey),
      counter: Number(stored.counter),
      transports: stored.transports as never,
    },
  }).catch(() => null);
  if (!verified?.verified) return null;
  const { count } = await deps.prisma.passkey.updateMany({
    where: { id, counter: stored.counter },
    data: { counter: BigInt(verified.authenticationInfo.newCounter), lastUsedAt: options.now },
  });
  return count === 1 ? stored.userId : null;
}
