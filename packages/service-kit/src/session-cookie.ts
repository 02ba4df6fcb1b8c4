// The session cookie (docs/decisions/0021-sessions-and-csrf.md), written by management when it signs
// a browser in or out and by the gateway when it renews a session: one home for its attributes.
// HttpOnly keeps the token from scripts; SameSite=Lax keeps it off cross-site subrequests and
// form POSTs; Secure whenever the public origin is https.
import { SESSION_COOKIE } from "@kurz/contracts";

export interface SessionCookieOptions {
  /** The public base URL (PUBLIC_BASE_URL): https there makes the cookie Secure. */
  publicBaseUrl: string;
}

const attributes = ({ publicBaseUrl }: SessionCookieOptions) =>
  `Path=/; HttpOnly; SameSite=Lax${publicBaseUrl.toLowerCase().startsWith("https:") ? "; Secure" : ""}`;

/** `Set-Cookie` value that stores the token for `maxAgeSeconds`. */
export function sessionCookie(token: string, maxAgeSeconds: number, opts: SessionCookieOptions): string {
  return `${SESSION_COOKIE}=${token}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; ${attributes(opts)}`;
}

/** `Set-Cookie` value that removes the cookie. */
export function clearedSessionCookie(opts: SessionCookieOptions): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${attributes(opts)}`;
}

/**
 * The session token a request's Cookie header carries, or null. When the header names the cookie more
 * than once (a cookie planted for a parent domain beside ours) the request is ambiguous and carries none.
 */
export function sessionTokenFrom(cookieHeader: string | undefined): string | null {
  if (!cookieHeader) return null;
  let found: string | null = null;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    if (found !== null) return null;
    found = part.slice(eq + 1).trim();
  }
  return found === "" ? null : found;
}
