// A single sign-on that cannot go on: its code is what the sign-in page shows (`#sso_error=<code>`),
// its ApiError what an API caller gets instead.
import type { SsoError } from "@kurz/contracts";
import type { ApiError } from "@kurz/service-kit";

export class SsoFailure extends Error {
  override name = "SsoFailure";
  constructor(
    readonly code: SsoError,
    readonly apiError: ApiError,
  ) {
    super(apiError.message);
  }
}

/** The callback's path and the page the browser lands on. */
export const callbackUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}/api/v1/auth/oidc/callback`;
export const signInPageUrl = (baseUrl: string, code: SsoError) =>
  `${baseUrl.replace(/\/+$/, "")}/login#sso_error=${code}`;
export const dashboardUrl = (baseUrl: string) => `${baseUrl.replace(/\/+$/, "")}/dashboard`;
