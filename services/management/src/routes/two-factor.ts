// /api/v1/auth/two-factor/*, /api/v1/auth/passkeys/* and /api/v1/auth/login/passkey/*: finishing a
// sign-in with a second factor, signing in with a passkey alone, and the signed-in user's own factors
// (docs/api.md, "Two-factor sign-in"). The use cases are in two-factor/; this file sets the cookie.
import { ROUTES } from "@kurz/contracts";
import {
  clientHashOf,
  deviceCookie,
  deviceOf,
  type KeyIdentity,
  type MountedRoute,
  route,
  sessionCookie,
  v1Success,
} from "@kurz/service-kit";
import type { Response } from "express";
import type { SignInDeps } from "../sessions/finish-sign-in.ts";
import { sessionCaller } from "../sessions/session-caller.ts";
import { completeTwoFactor } from "../two-factor/complete-two-factor.ts";
import { confirmTotp } from "../two-factor/confirm-totp.ts";
import { disableTotp } from "../two-factor/disable-totp.ts";
import type { TwoFactorDeps } from "../two-factor/factors.ts";
import { passkeySignIn, passkeySignInOptions } from "../two-factor/passkey-sign-in.ts";
import {
  deletePasskey,
  listPasskeys,
  passkeyRegistrationOptions,
  registerPasskey,
  renamePasskey,
} from "../two-factor/passkeys.ts";
import { regenerateRecoveryCodes } from "../two-factor/regenerate-recovery-codes.ts";
import { startTotp } from "../two-factor/start-totp.ts";
import { twoFactorStatus } from "../two-factor/two-factor-status.ts";

export function twoFactorRoutes(deps: SignInDeps & TwoFactorDeps): MountedRoute[] {
  const cookieOptions = { publicBaseUrl: deps.baseUrl };
  const signedIn = (res: Response, result: { token: string; device: string }) => {
    res.setHeader("Set-Cookie", [
      sessionCookie(result.token, deps.sessionTtlMs / 1000, cookieOptions),
      deviceCookie(result.device, cookieOptions),
    ]);
    res.setHeader("Cache-Control", "no-store");
  };
  const client = (res: Response) => ({ clientHash: clientHashOf(res), device: deviceOf(res) });
  const caller = (identity: KeyIdentity, res: Response) => ({
    ...sessionCaller(identity),
    clientHash: clientHashOf(res),
  });
  // Secrets and recovery codes are in these answers: never stored by a shared cache.
  const noStore = (res: Response) => res.setHeader("Cache-Control", "no-store");
  return [
    route(ROUTES.completeTwoFactor, async ({ body, res }) => {
      const { token, device, ...result } = await completeTwoFactor(deps, body, client(res));
      signedIn(res, { token, device });
      return v1Success(result);
    }),
    route(ROUTES.passkeySignInOptions, async () => v1Success(await passkeySignInOptions(deps))),
    route(ROUTES.passkeySignIn, async ({ body, res }) => {
      const { token, device, ...result } = await passkeySignIn(deps, body, client(res));
      signedIn(res, { token, device });
      return v1Success(result);
    }),
    route(ROUTES.getTwoFactor, async ({ identity, res }) => {
      noStore(res);
      return v1Success(await twoFactorStatus(deps.prisma, sessionCaller(identity).userId));
    }),
    route(ROUTES.startTotp, async ({ identity, body, res }) => {
      noStore(res);
      return v1Success(await startTotp(deps, caller(identity, res), body?.current_password));
    }),
    route(ROUTES.confirmTotp, async ({ identity, body, res }) => {
      noStore(res);
      return v1Success(await confirmTotp(deps, caller(identity, res), body.code));
    }),
    route(ROUTES.disableTotp, async ({ identity, body, res }) =>
      v1Success(await disableTotp(deps, caller(identity, res), body?.current_password)),
    ),
    route(ROUTES.regenerateRecoveryCodes, async ({ identity, body, res }) => {
      noStore(res);
      return v1Success(await regenerateRecoveryCodes(deps, caller(identity, res), body?.current_password));
    }),
    route(ROUTES.listPasskeys, async ({ identity }) =>
      v1Success(await listPasskeys(deps, sessionCaller(identity).userId)),
    ),
    route(ROUTES.passkeyRegistrationOptions, async ({ identity, body, res }) =>
      v1Success(await passkeyRegistrationOptions(deps, caller(identity, res), body?.current_password)),
    ),
    route(ROUTES.registerPasskey, async ({ identity, body, res }) =>
      v1Success(await registerPasskey(deps, caller(identity, res), body)),
    ),
    route(ROUTES.renamePasskey, async ({ identity, params, body }) =>
      v1Success(await renamePasskey(deps, sessionCaller(identity).userId, params.id, body.name)),
    ),
    route(ROUTES.deletePasskey, async ({ identity, params, body, res }) =>
      v1Success(await deletePasskey(deps, caller(identity, res), params.id, body?.current_password)),
    ),
  ];
}
