// Passkeys (WebAuthn credentials) of the signed-in user: registering one (options, then the browser's
// new credential), listing, renaming and removing them. Adding or removing one needs the password
// re-entered: a passkey signs in on its own, so a stolen cookie must not be able to plant one. Only
// discoverable credentials with user verification are asked for, so each can sign in without a
// password; attestation is not asked for (no authenticator model is required).
import type { Passkey } from "@kurz/contracts";
import type { Passkey as PasskeyRow } from "@kurz/db";
import { isUniqueViolation } from "@kurz/db";
import { badRequest, conflict, notFound, unauthorized } from "@kurz/service-kit";
import {
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { requireRecentPassword } from "../sessions/sudo.ts";
import { keepWebAuthnChallenge, takeWebAuthnChallenge } from "./challenge.ts";
import { factorsChanged, recordTwoFactorChange, type TwoFactorDeps } from "./factors.ts";
import type { UserCaller } from "./start-totp.ts";

export const toPasskey = (row: PasskeyRow): Passkey => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt.toISOString(),
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
});

const noSuchPasskey = () => notFound("No such passkey");
const registrationKey = (sessionId: string) => `register:${sessionId}`;

export async function passkeyRegistrationOptions(
  deps: TwoFactorDeps,
  caller: UserCaller,
  currentPassword: string | undefined,
  now = new Date(),
) {
  await requireRecentPassword(deps, caller, currentPassword, caller.clientHash, now);
  const user = await deps.prisma.user.findUnique({
    where: { id: caller.userId },
    select: { email: true, passkeys: { select: { id: true, transports: true } } },
  });
  if (!user) throw unauthorized("Unknown user");
  const options = await generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userName: user.email,
    userID: new TextEncoder().encode(caller.userId),
    attestationType: "none",
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    excludeCredentials: user.passkeys.map((p) => ({ id: p.id, transports: p.transports as never })),
  });
  await keepWebAuthnChallenge(deps.redis, registrationKey(caller.sessionId), options.challenge);
  return { options: { ...options } };
}

export async function registerPasskey(
  deps: TwoFactorDeps,
  caller: UserCaller,
  body: { response: Record<string, unknown>; name?: string | undefined },
  now = new Date(),
): Promise<Passkey> {
  const expectedChallenge = await takeWebAuthnChallenge(deps.redis, registrationKey(caller.sessionId));
  if (expectedChallenge === null) {
    throw badRequest("Ask for options first (POST /api/v1/auth/passkeys/options); they work once, 5 minutes");
  }
  const verified = await verifyRegistrationResponse({
    response: body.response as unknown as RegistrationResponseJSON,
    expectedChallenge,
    expectedOrigin: deps.relyingParty.origins,
    expectedRPID: deps.relyingParty.id,
    requireUserVerification: true,
  }).catch((err: unknown) => {
    throw badRequest(`The passkey could not be verified: ${err instanceof Error ? err.message : "invalid"}`);
  });
  if (!verified.verified) throw badRequest("The passkey could not be verified");
  const { credential } = verified.registrationInfo;
  const count = await deps.prisma.passkey.count({ where: { userId: caller.userId } });
  try {
    const row = await deps.prisma.$transaction(async (tx) => {
      const made = await tx.passkey.create({
        data: {
          id: credential.id,
          userId: caller.userId,
          publicKey: Buffer.from(credential.publicKey),
          counter: BigInt(credential.counter),
          transports: credential.transports ?? [],
          name: body.name ?? `Passkey ${count + 1}`,
          createdAt: now,
        },
      });
      await recordTwoFactorChange(tx, caller.userId, "passkey_added", {
        type: "passkey",
        id: made.id,
        details: { name: made.name },
      });
      return made;
    });
    await factorsChanged(deps, caller.userId);
    return toPasskey(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict("This passkey is already registered");
    throw err;
  }
}

export async function listPasskeys(deps: Pick<TwoFactorDeps, "prisma">, userId: string): Promise<Passkey[]> {
  const rows = await deps.prisma.passkey.findMany({
    where: { userId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
  });
  return rows.map(toPasskey);
}

export async function renamePasskey(
  deps: Pick<TwoFactorDeps, "prisma">,
  userId: string,
  id: string,
  name: string,
): Promise<Passkey> {
  const { count } = await deps.prisma.passkey.updateMany({ where: { id, userId }, data: { name } });
  if (count === 0) throw noSuchPasskey();
  const row = await deps.prisma.passkey.findUnique({ where: { id } });
  if (!row) throw noSuchPasskey();
  return toPasskey(row);
}

export async function deletePasskey(
  deps: TwoFactorDeps,
  caller: UserCaller,
  id: string,
  currentPassword: string | undefined,
  now = new Date(),
): Promise<{ id: string; deleted: true }> {
  await requireRecentPassword(deps, caller, currentPassword, caller.clientHash, now);
  await deps.prisma.$transaction(async (tx) => {
    const { count } = await tx.passkey.deleteMany({ where: { id, userId: caller.userId } });
    if (count === 0) throw noSuchPasskey();
    await recordTwoFactorChange(tx, caller.userId, "passkey_removed", { type: "passkey", id });
    const left = await tx.passkey.count({ where: { userId: caller.userId } });
    const totp = await tx.userTotp.count({ where: { userId: caller.userId, confirmedAt: { not: null } } });
    // Recovery codes stand in for a second factor: with none left, they would be one on their own.
    if (left === 0 && totp === 0) await tx.recoveryCode.deleteMany({ where: { userId: caller.userId } });
  });
  await factorsChanged(deps, caller.userId);
  return { id, deleted: true };
}
