// The session cookie (docs/decisions/0021-sessions-and-csrf.md), written by management when it signs
// a browser in or out and by the gateway when it renews a session: one home for its attributes.
// HttpOnly keeps the token from scripts; SameSite=Lax keeps it off cross-site subrequests and
// form POSTs. Whenever the public origin is https the cookie is Secure and named `__Host-kurz_session`:
// browsers then accept it only from this exact host, so a sibling subdomain (another tenant's page on
// a neighbouring host, say) can neither plant a session in the browser nor shadow ours, and only
// that name is read.
import {
  DEVICE_COOKIE,
  DEVICE_COOKIE_DAYS,
  DEVICE_COOKIE_TLS,
  SESSION_COOKIE,
  SESSION_COOKIE_TLS,
  SESSION_TOKEN_PATTERN,
  SSO_FLOW_COOKIE,
  SSO_FLOW_COOKIE_TLS,
  SSO_FLOW_MINUTES,
  SSO_FLOW_PATTERN,
} from "@kurz/contracts";

export interface SessionCookieOptions {
  /** The public base URL (PUBLIC_BASE_URL): https there makes the cookie Secure. */
  publicBaseUrl: string;
}

const overTls = ({ publicBaseUrl }: SessionCookieOptions) => publicBaseUrl.toLowerCase().startsWith("https:");

/** The cookie's name: `__Host-kurz_session` behind https, `kurz_session` otherwise. */
export const sessionCookieName = (opts: SessionCookieOptions) =>
  overTls(opts) ? SESSION_COOKIE_TLS : SESSION_COOKIE;

// `__Host-` requires exactly these: Secure, Path=/ and no Domain attribute.
const attributes = (opts: SessionCookieOptions) =>
  `Path=/; HttpOnly; SameSite=Lax${overTls(opts) ? "; Secure" : ""}`;

/** `Set-Cookie` value that stores the token for `maxAgeSeconds`. */
export function sessionCookie(token: string, maxAgeSeconds: number, opts: SessionCookieOptions): string {
  return `${sessionCookieName(opts)}=${token}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; ${attributes(opts)}`;
}

/** `Set-Cookie` value that removes the cookie. */
export function clearedSessionCookie(opts: SessionCookieOptions): string {
  return `${sessionCookieName(opts)}=; Max-Age=0; ${attributes(opts)}`;
}

/** The device cookie's name: `__Host-kurz_device` behind https, `kurz_device` otherwise. */
const deviceCookieName = (opts: SessionCookieOptions) => (overTls(opts) ? DEVICE_COOKIE_TLS : DEVICE_COOKIE);

/** `Set-Cookie` value that keeps the browser's device token for as long as browsers allow. */
export function deviceCookie(token: string, opts: SessionCookieOptions): string {
  return `${deviceCookieName(opts)}=${token}; Max-Age=${DEVICE_COOKIE_DAYS * 86_400}; ${attributes(opts)}`;
}

/** The device token a request's Cookie header carries, when well-formed; null otherwise. */
export function deviceTokenFrom(cookieHeader: string | undefined, opts: SessionCookieOptions): string | null {
  const token = cookieValue(cookieHeader, deviceCookieName(opts));
  return token !== null && SESSION_TOKEN_PATTERN.test(token) ? token : null;
}

/** The single sign-on flow cookie's name: `__Host-kurz_sso` behind https, `kurz_sso` otherwise. */
export const ssoFlowCookieName = (opts: SessionCookieOptions) =>
  overTls(opts) ? SSO_FLOW_COOKIE_TLS : SSO_FLOW_COOKIE;

/**
 * `Set-Cookie` value binding a sign-in flow to this browser. SameSite=Lax still sends it on the
 * provider's top-level redirect back to us, and not with what a foreign page makes a browser send in
 * the background.
 */
export function ssoFlowCookie(handle: string, opts: SessionCookieOptions): string {
  return `${ssoFlowCookieName(opts)}=${handle}; Max-Age=${SSO_FLOW_MINUTES * 60}; ${attributes(opts)}`;
}

export function clearedSsoFlowCookie(opts: SessionCookieOptions): string {
  return `${ssoFlowCookieName(opts)}=; Max-Age=0; ${attributes(opts)}`;
}

/** The flow handle a request's Cookie header carries, when well-formed; null otherwise. */
export function ssoFlowFrom(cookieHeader: string | undefined, opts: SessionCookieOptions): string | null {
  const handle = cookieValue(cookieHeader, ssoFlowCookieName(opts));
  return handle !== null && SSO_FLOW_PATTERN.test(handle) ? handle : null;
}

/**
 * The session token a request's Cookie header carries under the cookie's name (sessionCookieName), or
 * null. When the header names the cookie more than once (a cookie planted for a parent domain beside
 * ours) the request is ambiguous and carries none.
 */
export function sessionTokenFrom(
  cookieHeader: string | undefined,
  opts: SessionCookieOptions,
): string | null {
  return cookieValue(cookieHeader, sessionCookieName(opts));
}

/** The value of the cookie `name`, or null when absent, empty or named twice. */
function cookieValue(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  let found: string | null = null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    if (found !== null) return null;
    found = part.slice(eq + 1).trim();
  }
  return found === "" ? null : found;
}
