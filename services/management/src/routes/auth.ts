// /api/v1/auth/*: sign-up, sign-in, sign-out (here or everywhere), the current session, the list of
// sessions, confirming the password and resetting a forgotten one (docs/api.md, "Sessions"). The use
// cases are in accounts/ and sessions/; this file sets the cookie.
import { ROUTES } from "@kurz/contracts";
import {
  clearedSessionCookie,
  clientHashOf,
  deviceCookie,
  deviceOf,
  type MountedRoute,
  route,
  sessionCookie,
  v1Success,
} from "@kurz/service-kit";
import type { Response } from "express";
import { changeEmail } from "../accounts/change-email.ts";
import { confirmEmailChange } from "../accounts/confirm-email-change.ts";
import { registerAccount } from "../accounts/register-account.ts";
import { requestPasswordReset } from "../accounts/request-password-reset.ts";
import { resetPassword } from "../accounts/reset-password.ts";
import { currentSession } from "../sessions/current-session.ts";
import { endSessions } from "../sessions/end-sessions.ts";
import type { SignInDeps } from "../sessions/finish-sign-in.ts";
import { listSessions } from "../sessions/list-sessions.ts";
import { sessionCaller } from "../sessions/session-caller.ts";
import { signIn } from "../sessions/sign-in.ts";
import { confirmPassword } from "../sessions/sudo.ts";
import type { TwoFactorDeps } from "../two-factor/factors.ts";

export function authRoutes(deps: SignInDeps & TwoFactorDeps): MountedRoute[] {
  const cookieOptions = { publicBaseUrl: deps.baseUrl };
  const setCookie = (res: Response, token: string, device: string) => {
    res.setHeader("Set-Cookie", [
      sessionCookie(token, deps.sessionTtlMs / 1000, cookieOptions),
      deviceCookie(device, cookieOptions),
    ]);
    // The answers carry the session's CSRF token: never stored by a shared cache.
    res.setHeader("Cache-Control", "no-store");
  };
  return [
    route(ROUTES.register, async ({ body, res }) => {
      const { token, device, ...registered } = await registerAccount(deps, body, deviceOf(res));
      setCookie(res, token, device);
      return v1Success(registered);
    }),
    route(ROUTES.login, async ({ body, res }) => {
      const client = { clientHash: clientHashOf(res), device: deviceOf(res) };
      const outcome = await signIn(deps, body, client);
      res.setHeader("Cache-Control", "no-store");
      if ("two_factor_required" in outcome) return v1Success(outcome);
      const { token, device, ...signedIn } = outcome;
      setCookie(res, token, device);
      return v1Success(signedIn);
    }),
    route(ROUTES.requestPasswordReset, async ({ body, res }) =>
      v1Success(await requestPasswordReset(deps, body.email, clientHashOf(res))),
    ),
    route(ROUTES.resetPassword, async ({ params, body, res }) => {
      const outcome = await resetPassword(deps, params.token, body.password, deviceOf(res));
      res.setHeader("Cache-Control", "no-store");
      if ("two_factor_required" in outcome) return v1Success(outcome);
      const { token, device, ...signedIn } = outcome;
      setCookie(res, token, device);
      return v1Success(signedIn);
    }),
    route(ROUTES.changeEmail, async ({ identity, body, res }) =>
      v1Success(await changeEmail(deps, sessionCaller(identity).userId, body, clientHashOf(res))),
    ),
    route(ROUTES.confirmEmailChange, async ({ params }) =>
      v1Success(await confirmEmailChange(deps, params.token)),
    ),
    route(ROUTES.logout, async ({ identity, res }) => {
      const { userId, sessionId } = sessionCaller(identity);
      await endSessions(
        deps,
        { userId, id: sessionId },
        { action: "session.signed_out", resourceType: "session", resourceId: sessionId },
      );
      res.setHeader("Set-Cookie", clearedSessionCookie(cookieOptions));
      return v1Success({ signed_out: true as const });
    }),
    route(ROUTES.confirmPassword, async ({ identity, body, res }) =>
      v1Success(
        await confirmPassword(deps, sessionCaller(identity), body.current_password, clientHashOf(res)),
      ),
    ),
    route(ROUTES.listSessions, async ({ identity, res }) => {
      res.setHeader("Cache-Control", "no-store");
      const { userId, sessionId } = sessionCaller(identity);
      return v1Success(await listSessions(deps.prisma, userId, sessionId));
    }),
    route(ROUTES.endAllSessions, async ({ identity, res }) => {
      const { userId } = sessionCaller(identity);
      const ended = await endSessions(
        deps,
        { userId },
        {
          action: "session.signed_out",
          resourceType: "user",
          resourceId: userId,
          details: { everywhere: true },
        },
      );
      res.setHeader("Set-Cookie", clearedSessionCookie(cookieOptions));
      return v1Success({ ended });
    }),
    route(ROUTES.getSession, async ({ identity, res }) => {
      const session = await currentSession(deps.prisma, sessionCaller(identity));
      res.setHeader("Cache-Control", "no-store");
      return v1Success(session);
    }),
  ];
}
