// The X-API-Version header on every /api/v1 response (docs/api.md, "Versions"). SnipURL's changelog
// tells clients to read it; the v1 contract Kurz serves is SnipURL's release 1.0.0, so that is the
// value, and its major always equals the path's version. Additions that old clients can ignore (new
// optional fields, new endpoints) do not change it; a breaking change is a new path version.
export const API_VERSION_HEADER = "X-API-Version";
export const API_VERSION = "1.0.0";

/** Whether a request path belongs to the versioned API (`/api/v1` and below), compared case-insensitively. */
export function isV1ApiPath(pathname: string): boolean {
  const path = pathname.toLowerCase();
  return path === "/api/v1" || path.startsWith("/api/v1/");
}
