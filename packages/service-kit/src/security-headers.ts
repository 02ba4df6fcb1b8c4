// The headers that keep browsers from misreading or misusing what Kurz answers, in one place for
// every service (docs/security.md, "Framing and sniffing"):
// - every answer: `X-Content-Type-Options: nosniff`, so a JSON body or a file is never sniffed into
//   HTML or script;
// - every HTML page: a Content-Security-Policy that ends in `frame-ancestors 'none'` and
//   `base-uri 'none'`, `X-Frame-Options: DENY` for browsers without CSP 2, nosniff and a
//   `Referrer-Policy`. No page of Kurz is meant to be framed: a CTA overlay frames its destination
//   (`frame-src` of the page's own policy), never the reverse.
// Constant values only, so setting them costs no per-request work beyond the header itself.

export const NOSNIFF_HEADER = "X-Content-Type-Options";
export const NOSNIFF = "nosniff";

/** Directives every HTML page's policy ends with; a page's own policy must not name them. */
const PAGE_DIRECTIVES = "base-uri 'none'; frame-ancestors 'none'";

export interface PageHeaderOptions {
  /** Default `strict-origin-when-cross-origin`, the browsers' own default, made explicit. */
  referrerPolicy?: "no-referrer" | "same-origin" | "strict-origin" | "strict-origin-when-cross-origin";
}

/**
 * The security headers of an HTML page whose Content-Security-Policy is `csp` (its own directives:
 * sources of scripts, styles, frames, forms), with framing and `<base>` forbidden.
 */
export function htmlPageHeaders(csp: string, options: PageHeaderOptions = {}): Record<string, string> {
  if (/(^|;)\s*(frame-ancestors|base-uri)\b/i.test(csp)) {
    throw new Error("htmlPageHeaders adds frame-ancestors and base-uri itself");
  }
  return {
    "Content-Security-Policy": `${csp.trim().replace(/;\s*$/, "")}; ${PAGE_DIRECTIVES}`,
    "X-Frame-Options": "DENY",
    [NOSNIFF_HEADER]: NOSNIFF,
    "Referrer-Policy": options.referrerPolicy ?? "strict-origin-when-cross-origin",
  };
}
