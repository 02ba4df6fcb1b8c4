/**
 * Words a custom alias may not take: every top-level path the platform serves or is likely to serve,
 * plus well-known files browsers and crawlers request at the root. Some entries (`r`, `favicon.ico`) can
 * never pass the alias pattern; they are listed so that generated codes and other callers share one list.
 * The paths the public host hands to the gateway (`/api`, `/docs`, `/c/…`, `/login`, `/signup`,
 * `/dashboard`, `/stats/…`, `/assets/…`) and the redirect's rotators (`/r/…`) are all here. An import
 * keeps such a code only on a branded domain, where these paths are the domain's own, or renamed
 * (docs/import-export.md).
 */
export const RESERVED_ALIASES: readonly string[] = Object.freeze([
  // API and platform
  "api",
  "internal",
  "docs",
  "openapi",
  "openapi.json",
  "swagger",
  "health",
  "healthz",
  "ready",
  "readyz",
  "live",
  "livez",
  "metrics",
  "status",
  // dashboard and account pages
  "dashboard",
  "admin",
  "account",
  "settings",
  "login",
  "logout",
  "signin",
  "signout",
  "register",
  "signup",
  "auth",
  "oauth",
  "password",
  "reset",
  "verify",
  "user",
  "users",
  "links",
  "analytics",
  "campaigns",
  "channels",
  "domains",
  "overlay",
  "keys",
  // short public prefixes: rotators, campaigns, channels, stats pages, users, QR
  "r",
  "c",
  "s",
  "u",
  "p",
  "l",
  "go",
  "stats",
  "qr",
  "public",
  // static files
  "assets",
  "static",
  "favicon.ico",
  "robots.txt",
  "sitemap.xml",
  "manifest.json",
  "humans.txt",
  "security.txt",
  ".well-known",
  // marketing pages a self-hosted instance may add
  "about",
  "pricing",
  "terms",
  "privacy",
  "contact",
  "help",
  "support",
  "blog",
  "www",
  "app",
]);

const reserved = new Set(RESERVED_ALIASES.map((word) => word.toLowerCase()));

export function isReservedAlias(alias: string): boolean {
  return reserved.has(alias.toLowerCase());
}
