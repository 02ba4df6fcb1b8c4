// POST /api/v1/auth/two-factor/totp: a new secret for an authenticator app, with the password
// re-entered (sudo): a stolen cookie must not turn on a second factor the owner does not hold. The
// secret stays unconfirmed, and asks for nothing at sign-in, until a code from the app confirms it.
import type { TotpEnrolment } from "@kurz/contracts";
import { conflict, unauthorized } from "@kurz/service-kit";
import QRCode from "qrcode";
import { requireRecentPassword } from "../sessions/sudo.ts";
import type { TwoFactorDeps } from "./factors.ts";
import { newTotpSecret, totpFor } from "./totp.ts";

export interface UserCaller {
  userId: string;
  sessionId: string;
  clientHash: string | null;
}

export async function startTotp(
  deps: TwoFactorDeps,
  caller: UserCaller,
  currentPassword: string | undefined,
  now = new Date(),
): Promise<TotpEnrolment> {
  await requireRecentPassword(deps, caller, currentPassword, caller.clientHash, now);
  const user = await deps.prisma.user.findUnique({
    where: { id: caller.userId },
    select: { email: true, totp: { select: { confirmedAt: true } } },
  });
  if (!user) throw unauthorized("Unknown user");
  if (user.totp?.confirmedAt) {
    throw conflict("An authenticator app is already set up: remove it first to set up another");
  }
  const secret = newTotpSecret();
  const sealed = deps.totpSecrets.seal(secret);
  await deps.prisma.userTotp.upsert({
    where: { userId: caller.userId },
    create: { userId: caller.userId, secretSealed: sealed, createdAt: now },
    update: { secretSealed: sealed, lastUsedStep: null, createdAt: now },
  });
  const uri = totpFor(secret, user.email, deps.relyingParty.name).toString();
  const svg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return {
    secret,
    otpauth_uri: uri,
    qr_data_url: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
  };
}
