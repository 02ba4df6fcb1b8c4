// Single sign-on (docs/workspaces.md, "Single sign-on"): the sign-in page's providers, the browser's
// round trip through one, and a workspace's own provider. The use cases are in sso/; this file sets
// the cookies and turns a failed sign-in into the sign-in page with its error code, since a browser,
// not a script, follows these redirects (an API caller that asks for JSON gets the v1 error instead).
import { ROUTES } from "@kurz/contracts";
import {
  clearedSsoFlowCookie,
  deviceCookie,
  deviceOf,
  type MountedRoute,
  type RawReply,
  route,
  sessionCookie,
  ssoFlowCookie,
  ssoFlowFrom,
  v1Success,
} from "@kurz/service-kit";
import type { Request, Response } from "express";
import type { Mailer } from "../mail/mailer.ts";
import { finishSso } from "../sso/finish-sso.ts";
import { listSsoProviders } from "../sso/list-providers.ts";
import { deleteSsoConfig, getSsoConfig, putSsoConfig } from "../sso/sso-config.ts";
import { dashboardUrl, SsoFailure, signInPageUrl } from "../sso/sso-failure.ts";
import type { SsoDeps } from "../sso/sso-settings.ts";
import { startSso } from "../sso/start-sso.ts";

const redirect = (location: string): RawReply => ({
  contentType: "text/plain",
  body: `Redirecting to ${location}`,
  headers: { Location: location, "Cache-Control": "no-store" },
});

/** A browser's navigation asks for HTML first; a script for JSON. */
const isBrowser = (req: Request) => req.accepts(["json", "html"]) === "html";

export function ssoRoutes(deps: SsoDeps & { mailer: Mailer | null }): MountedRoute[] {
  const cookieOptions = { publicBaseUrl: deps.baseUrl };
  const failed = (req: Request, res: Response, err: unknown): RawReply => {
    if (!(err instanceof SsoFailure)) throw err;
    if (!isBrowser(req)) throw err.apiError;
    res.setHeader("Set-Cookie", clearedSsoFlowCookie(cookieOptions));
    return redirect(signInPageUrl(deps.baseUrl, err.code));
  };
  return [
    route(ROUTES.listSsoProviders, async ({ query }) =>
      v1Success(await listSsoProviders(deps, query.workspace)),
    ),
    route(ROUTES.startSso, async ({ query, req, res }) => {
      try {
        const { location, handle } = await startSso(deps, query.workspace ?? null);
        res.setHeader("Set-Cookie", ssoFlowCookie(handle, cookieOptions));
        return redirect(location);
      } catch (err) {
        return failed(req, res, err);
      }
    }),
    route(ROUTES.finishSso, async ({ query, req, res }) => {
      try {
        const queryAt = req.originalUrl.indexOf("?");
        const signedIn = await finishSso(deps, {
          handle: ssoFlowFrom(req.headers.cookie, cookieOptions),
          query,
          search: queryAt < 0 ? "" : req.originalUrl.slice(queryAt),
          device: deviceOf(res),
        });
        res.setHeader("Set-Cookie", [
          sessionCookie(signedIn.token, deps.sessionTtlMs / 1000, cookieOptions),
          deviceCookie(signedIn.device, cookieOptions),
          clearedSsoFlowCookie(cookieOptions),
        ]);
        return redirect(dashboardUrl(deps.baseUrl));
      } catch (err) {
        return failed(req, res, err);
      }
    }),
    route(ROUTES.getSsoConfig, async ({ identity, params }) =>
      v1Success(await getSsoConfig(deps, identity, params.id)),
    ),
    route(ROUTES.putSsoConfig, async ({ identity, params, body }) =>
      v1Success(await putSsoConfig(deps, identity, params.id, body)),
    ),
    route(ROUTES.deleteSsoConfig, async ({ identity, params }) =>
      v1Success(await deleteSsoConfig(deps, identity, params.id)),
    ),
  ];
}
